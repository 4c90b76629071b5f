rtl/rr_arbiter_n2.v
rtl/skid_buffer_width90.v
rtl/sync_fifo_depth4_width1.v
rtl/skid_buffer_width73.v
rtl/skid_buffer_width7.v
rtl/nic_axi_wr_mux.v
