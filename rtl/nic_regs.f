rtl/nic_regs.v
