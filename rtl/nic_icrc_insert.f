rtl/roce_icrc_parallel_skip6.v
rtl/nic_icrc_insert.v
