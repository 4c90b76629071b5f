rtl/sync_fifo_ram_width64.v
