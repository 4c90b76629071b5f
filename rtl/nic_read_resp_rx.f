rtl/sync_fifo_depth8_width1.v
rtl/sync_fifo_depth8_width13.v
rtl/sync_fifo_width108.v
rtl/nic_byte_splitter.v
rtl/sync_fifo_ram_width73.v
rtl/nic_read_resp_rx.v
