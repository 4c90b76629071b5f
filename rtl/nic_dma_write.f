rtl/sync_fifo_depth4_width83.v
rtl/sync_fifo_depth4_width67.v
rtl/sync_fifo.v
rtl/sync_fifo_width5.v
rtl/skid_buffer_width73.v
rtl/nic_dma_write.v
