nic_regs.v
