rtl/wrr_arbiter.v
