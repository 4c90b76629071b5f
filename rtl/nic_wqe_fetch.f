wrr_arbiter.v
nic_wqe_fetch.v
