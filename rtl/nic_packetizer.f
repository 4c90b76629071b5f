rtl/skid_buffer_width73.v
rtl/nic_packetizer.v
