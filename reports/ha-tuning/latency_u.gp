# Decision latency against U on measured round trips
# Written by rl-testbed sweep report from latency_u.dat; run: gnuplot latency_u.gp (draws latency_u.svg and latency_u.png)
set encoding utf8

reset
set terminal svg size 1500,800 dynamic font 'Sans,13' noenhanced background rgb 'white'
set output 'latency_u.svg'
set title 'Decision latency against U on measured round trips'
set grid lc rgb '#dddddd'
set multiplot layout 1,2
set logscale xy
set xlabel 'U (ms, log scale)'
set ylabel 'decision latency, mean over seeds (ms, log scale)'
set y2label 'oldest server selected (fraction)'
set y2range [0:1.05]
set y2tics 0.2
set ytics nomirror
set key outside below maxrows 3 box font ',9'
set bmargin 9
set title 'empirical_lan (families side by side: U x 0.94 .. 1.06)'
plot 'latency_u.dat' index 0 using ($1*0.9400):3:7 with yerrorlines lw 2 pt 7 lc rgb '#1f77b4' title 'U x default: p99', \
     '' index 0 using ($1*0.9400):2:6 with yerrorlines lw 1.5 dt 2 pt 6 lc rgb '#1f77b4' title 'U x default: p50', \
     '' index 0 using ($1*0.9400):4:8 axes x1y2 with yerrorlines lw 1 dt 3 pt 1 lc rgb '#1f77b4' title 'U x default: oldest selected', \
     'latency_u.dat' index 1 using ($1*1.0000):3:7 with yerrorlines lw 2 pt 5 lc rgb '#d62728' title 'U x oldest_preferred: p99', \
     '' index 1 using ($1*1.0000):2:6 with yerrorlines lw 1.5 dt 2 pt 4 lc rgb '#d62728' title 'U x oldest_preferred: p50', \
     '' index 1 using ($1*1.0000):4:8 axes x1y2 with yerrorlines lw 1 dt 3 pt 2 lc rgb '#d62728' title 'U x oldest_preferred: oldest selected', \
     'latency_u.dat' index 2 using ($1*1.0600):3:7 with yerrorlines lw 2 pt 9 lc rgb '#2ca02c' title 'U x b_fixed-U5-N3: p99', \
     '' index 2 using ($1*1.0600):2:6 with yerrorlines lw 1.5 dt 2 pt 8 lc rgb '#2ca02c' title 'U x b_fixed-U5-N3: p50', \
     '' index 2 using ($1*1.0600):4:8 axes x1y2 with yerrorlines lw 1 dt 3 pt 3 lc rgb '#2ca02c' title 'U x b_fixed-U5-N3: oldest selected'
set title 'empirical_regions (families side by side: U x 0.94 .. 1.06)'
plot 'latency_u.dat' index 3 using ($1*0.9400):3:7 with yerrorlines lw 2 pt 7 lc rgb '#1f77b4' title 'U x default: p99', \
     '' index 3 using ($1*0.9400):2:6 with yerrorlines lw 1.5 dt 2 pt 6 lc rgb '#1f77b4' title 'U x default: p50', \
     '' index 3 using ($1*0.9400):4:8 axes x1y2 with yerrorlines lw 1 dt 3 pt 1 lc rgb '#1f77b4' title 'U x default: oldest selected', \
     'latency_u.dat' index 4 using ($1*1.0000):3:7 with yerrorlines lw 2 pt 5 lc rgb '#d62728' title 'U x oldest_preferred: p99', \
     '' index 4 using ($1*1.0000):2:6 with yerrorlines lw 1.5 dt 2 pt 4 lc rgb '#d62728' title 'U x oldest_preferred: p50', \
     '' index 4 using ($1*1.0000):4:8 axes x1y2 with yerrorlines lw 1 dt 3 pt 2 lc rgb '#d62728' title 'U x oldest_preferred: oldest selected', \
     'latency_u.dat' index 5 using ($1*1.0600):3:7 with yerrorlines lw 2 pt 9 lc rgb '#2ca02c' title 'U x b_fixed-U5-N3: p99', \
     '' index 5 using ($1*1.0600):2:6 with yerrorlines lw 1.5 dt 2 pt 8 lc rgb '#2ca02c' title 'U x b_fixed-U5-N3: p50', \
     '' index 5 using ($1*1.0600):4:8 axes x1y2 with yerrorlines lw 1 dt 3 pt 3 lc rgb '#2ca02c' title 'U x b_fixed-U5-N3: oldest selected'
unset multiplot
unset output

reset
set terminal pngcairo size 1500,800 font 'Sans,12' noenhanced background rgb 'white'
set output 'latency_u.png'
set title 'Decision latency against U on measured round trips'
set grid lc rgb '#dddddd'
set multiplot layout 1,2
set logscale xy
set xlabel 'U (ms, log scale)'
set ylabel 'decision latency, mean over seeds (ms, log scale)'
set y2label 'oldest server selected (fraction)'
set y2range [0:1.05]
set y2tics 0.2
set ytics nomirror
set key outside below maxrows 3 box font ',9'
set bmargin 9
set title 'empirical_lan (families side by side: U x 0.94 .. 1.06)'
plot 'latency_u.dat' index 0 using ($1*0.9400):3:7 with yerrorlines lw 2 pt 7 lc rgb '#1f77b4' title 'U x default: p99', \
     '' index 0 using ($1*0.9400):2:6 with yerrorlines lw 1.5 dt 2 pt 6 lc rgb '#1f77b4' title 'U x default: p50', \
     '' index 0 using ($1*0.9400):4:8 axes x1y2 with yerrorlines lw 1 dt 3 pt 1 lc rgb '#1f77b4' title 'U x default: oldest selected', \
     'latency_u.dat' index 1 using ($1*1.0000):3:7 with yerrorlines lw 2 pt 5 lc rgb '#d62728' title 'U x oldest_preferred: p99', \
     '' index 1 using ($1*1.0000):2:6 with yerrorlines lw 1.5 dt 2 pt 4 lc rgb '#d62728' title 'U x oldest_preferred: p50', \
     '' index 1 using ($1*1.0000):4:8 axes x1y2 with yerrorlines lw 1 dt 3 pt 2 lc rgb '#d62728' title 'U x oldest_preferred: oldest selected', \
     'latency_u.dat' index 2 using ($1*1.0600):3:7 with yerrorlines lw 2 pt 9 lc rgb '#2ca02c' title 'U x b_fixed-U5-N3: p99', \
     '' index 2 using ($1*1.0600):2:6 with yerrorlines lw 1.5 dt 2 pt 8 lc rgb '#2ca02c' title 'U x b_fixed-U5-N3: p50', \
     '' index 2 using ($1*1.0600):4:8 axes x1y2 with yerrorlines lw 1 dt 3 pt 3 lc rgb '#2ca02c' title 'U x b_fixed-U5-N3: oldest selected'
set title 'empirical_regions (families side by side: U x 0.94 .. 1.06)'
plot 'latency_u.dat' index 3 using ($1*0.9400):3:7 with yerrorlines lw 2 pt 7 lc rgb '#1f77b4' title 'U x default: p99', \
     '' index 3 using ($1*0.9400):2:6 with yerrorlines lw 1.5 dt 2 pt 6 lc rgb '#1f77b4' title 'U x default: p50', \
     '' index 3 using ($1*0.9400):4:8 axes x1y2 with yerrorlines lw 1 dt 3 pt 1 lc rgb '#1f77b4' title 'U x default: oldest selected', \
     'latency_u.dat' index 4 using ($1*1.0000):3:7 with yerrorlines lw 2 pt 5 lc rgb '#d62728' title 'U x oldest_preferred: p99', \
     '' index 4 using ($1*1.0000):2:6 with yerrorlines lw 1.5 dt 2 pt 4 lc rgb '#d62728' title 'U x oldest_preferred: p50', \
     '' index 4 using ($1*1.0000):4:8 axes x1y2 with yerrorlines lw 1 dt 3 pt 2 lc rgb '#d62728' title 'U x oldest_preferred: oldest selected', \
     'latency_u.dat' index 5 using ($1*1.0600):3:7 with yerrorlines lw 2 pt 9 lc rgb '#2ca02c' title 'U x b_fixed-U5-N3: p99', \
     '' index 5 using ($1*1.0600):2:6 with yerrorlines lw 1.5 dt 2 pt 8 lc rgb '#2ca02c' title 'U x b_fixed-U5-N3: p50', \
     '' index 5 using ($1*1.0600):4:8 axes x1y2 with yerrorlines lw 1 dt 3 pt 3 lc rgb '#2ca02c' title 'U x b_fixed-U5-N3: oldest selected'
unset multiplot
unset output
