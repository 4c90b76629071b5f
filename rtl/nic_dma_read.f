rtl/sync_fifo_depth4_width83.v
rtl/sync_fifo_depth8_width19.v
rtl/nic_dma_read.v
