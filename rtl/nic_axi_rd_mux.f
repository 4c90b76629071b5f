rtl/rr_arbiter_n2.v
rtl/sync_fifo_bypass1_depth2_width72.v
rtl/nic_axi_rd_mux.v
