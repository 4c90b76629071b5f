rtl/wrr_arbiter.v
rtl/nic_wqe_fetch.v
