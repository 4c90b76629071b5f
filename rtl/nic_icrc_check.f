rtl/roce_icrc_parallel_skip6.v
rtl/sync_fifo_width16.v
rtl/nic_icrc_check.v
