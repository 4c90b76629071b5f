rtl/nic_packetizer.v
