rtl/sync_fifo_depth4_width2.v
rtl/nic_wqe_fetch.v
