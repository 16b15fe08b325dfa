# the tip-off without attitude control: scenes/undock_adcs.yaml with its controller off
0 controller adcs off
