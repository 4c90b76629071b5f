rtl/async_fifo_width64.v
