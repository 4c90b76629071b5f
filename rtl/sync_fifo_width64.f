rtl/sync_fifo_width64.v
