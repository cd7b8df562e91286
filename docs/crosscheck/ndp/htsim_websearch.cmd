htsim_ndp -o htsim.log -nodes 144 -topo docs/crosscheck/ndp/topology.txt -tm docs/crosscheck/ndp/htsim_websearch.cm -cwnd 23 -q 8 -strat perm -linkspeed 10000 -mtu 9000 -seed 13 -end 2000000
