# p99 decision latency against false-allow rate
# Written by rl-testbed sweep report from pareto.dat; run: gnuplot pareto.gp (draws pareto.svg and pareto.png)
set encoding utf8

reset
set terminal svg size 1100,700 dynamic font 'Sans,13' noenhanced background rgb 'white'
set output 'pareto.svg'
set title 'p99 decision latency against false-allow rate'
set grid lc rgb '#dddddd'
set logscale x
set xlabel 'p99 decision latency, mean over traces (ms), log scale; bars: paired 95 % interval from the baseline'
set ylabel 'false-allow rate, mean over traces (% of decided requests)'
set key outside right top box opaque
set offsets graph 0.02, graph 0.08, graph 0.05, graph 0.05
plot 'pareto.dat' index 0 using 1:2:5:6 with xyerrorbars pt 6 ps 1.1 lc rgb '#b0b0b0' title 'configuration', \
     '' index 1 using 1:2 with linespoints lw 2 dt 2 pt 7 ps 1.3 lc rgb '#000000' title 'Pareto front', \
     '' index 1 using 1:2:3 with labels left offset char 0.8,0.7 font ',9' tc rgb '#000000' notitle, \
     '' index 2 using 1:2:4:5 with xyerrorbars pt 5 ps 2.6 lw 1.5 lc rgb '#1f77b4' title 'default (baseline)', \
     '' index 3 using 1:2:4:5 with xyerrorbars pt 9 ps 1.8 lw 1.5 lc rgb '#d62728' title 'api_md', \
     '' index 4 using 1:2:4:5 with xyerrorbars pt 9 ps 1.8 lw 1.5 lc rgb '#2ca02c' title 'strict_oldest', \
     '' index 5 using 1:2:4:5 with xyerrorbars pt 9 ps 1.8 lw 1.5 lc rgb '#ff7f0e' title 'oldest_preferred', \
     '' index 6 using 1:2:4:5 with xyerrorbars pt 9 ps 1.8 lw 1.5 lc rgb '#9467bd' title 'fastest_valid', \
     '' index 7 using 1:2:4:5 with xyerrorbars pt 9 ps 1.8 lw 1.5 lc rgb '#8c564b' title 'bounded_collection', \
     '' index 8 using 1:2:4:5 with xyerrorbars pt 9 ps 1.8 lw 1.5 lc rgb '#e377c2' title 'noC-default', \
     '' index 9 using 1:2:4:5 with xyerrorbars pt 9 ps 1.8 lw 1.5 lc rgb '#17becf' title 'b_fixed-U5-N3'
unset output

reset
set terminal pngcairo size 1100,700 font 'Sans,12' noenhanced background rgb 'white'
set output 'pareto.png'
set title 'p99 decision latency against false-allow rate'
set grid lc rgb '#dddddd'
set logscale x
set xlabel 'p99 decision latency, mean over traces (ms), log scale; bars: paired 95 % interval from the baseline'
set ylabel 'false-allow rate, mean over traces (% of decided requests)'
set key outside right top box opaque
set offsets graph 0.02, graph 0.08, graph 0.05, graph 0.05
plot 'pareto.dat' index 0 using 1:2:5:6 with xyerrorbars pt 6 ps 1.1 lc rgb '#b0b0b0' title 'configuration', \
     '' index 1 using 1:2 with linespoints lw 2 dt 2 pt 7 ps 1.3 lc rgb '#000000' title 'Pareto front', \
     '' index 1 using 1:2:3 with labels left offset char 0.8,0.7 font ',9' tc rgb '#000000' notitle, \
     '' index 2 using 1:2:4:5 with xyerrorbars pt 5 ps 2.6 lw 1.5 lc rgb '#1f77b4' title 'default (baseline)', \
     '' index 3 using 1:2:4:5 with xyerrorbars pt 9 ps 1.8 lw 1.5 lc rgb '#d62728' title 'api_md', \
     '' index 4 using 1:2:4:5 with xyerrorbars pt 9 ps 1.8 lw 1.5 lc rgb '#2ca02c' title 'strict_oldest', \
     '' index 5 using 1:2:4:5 with xyerrorbars pt 9 ps 1.8 lw 1.5 lc rgb '#ff7f0e' title 'oldest_preferred', \
     '' index 6 using 1:2:4:5 with xyerrorbars pt 9 ps 1.8 lw 1.5 lc rgb '#9467bd' title 'fastest_valid', \
     '' index 7 using 1:2:4:5 with xyerrorbars pt 9 ps 1.8 lw 1.5 lc rgb '#8c564b' title 'bounded_collection', \
     '' index 8 using 1:2:4:5 with xyerrorbars pt 9 ps 1.8 lw 1.5 lc rgb '#e377c2' title 'noC-default', \
     '' index 9 using 1:2:4:5 with xyerrorbars pt 9 ps 1.8 lw 1.5 lc rgb '#17becf' title 'b_fixed-U5-N3'
unset output
