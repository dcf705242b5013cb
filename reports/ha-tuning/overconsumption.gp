# Over-consumed tokens against replay count and dedup TTL
# Written by rl-testbed sweep report from overconsumption.dat; run: gnuplot overconsumption.gp (draws overconsumption.svg and overconsumption.png)
set encoding utf8

reset
set terminal svg size 1300,600 dynamic font 'Sans,13' noenhanced background rgb 'white'
set output 'overconsumption.svg'
set title 'Over-consumed tokens against replay count and dedup TTL'
set grid lc rgb '#dddddd'
set multiplot layout 1,2
set ylabel 'over-consumed tokens per run, mean over traces'
set key top right box opaque font ',10'
set offsets graph 0.05, graph 0.05, graph 0.05, graph 0.05
set title 'against the replay count N (bars: paired 95 % interval from the baseline)'
set xlabel 'replay count N (replays after the first send)'
set xtics 1
set xrange [-0.5:*]
plot 'overconsumption.dat' index 0 using 1:3:5 with yerrorbars pt 6 ps 1.1 lc rgb '#b0b0b0' title 'configuration', \
     '' index 1 using 1:3:5 with yerrorbars pt 1 ps 1.6 lw 1.5 lc rgb '#1f77b4' title 'default (baseline)', \
     '' index 2 using 1:3:5 with yerrorbars pt 2 ps 1.6 lw 1.5 lc rgb '#d62728' title 'api_md', \
     '' index 3 using 1:3:5 with yerrorbars pt 3 ps 1.6 lw 1.5 lc rgb '#2ca02c' title 'strict_oldest', \
     '' index 4 using 1:3:5 with yerrorbars pt 4 ps 1.6 lw 1.5 lc rgb '#ff7f0e' title 'oldest_preferred', \
     '' index 5 using 1:3:5 with yerrorbars pt 5 ps 1.6 lw 1.5 lc rgb '#9467bd' title 'fastest_valid', \
     '' index 6 using 1:3:5 with yerrorbars pt 6 ps 1.6 lw 1.5 lc rgb '#8c564b' title 'bounded_collection', \
     '' index 7 using 1:3:5 with yerrorbars pt 7 ps 1.6 lw 1.5 lc rgb '#e377c2' title 'noC-default', \
     '' index 8 using 1:3:5 with yerrorbars pt 8 ps 1.6 lw 1.5 lc rgb '#17becf' title 'b_fixed-U5-N3'
set title 'against the dedup TTL (bars: paired 95 % interval from the baseline)'
set xlabel 'dedup TTL = horizon H (ms)'
set xtics autofreq
set xrange [0:*]
plot 'overconsumption.dat' index 0 using 2:3:5 with yerrorbars pt 6 ps 1.1 lc rgb '#b0b0b0' title 'configuration', \
     '' index 1 using 2:3:5 with yerrorbars pt 1 ps 1.6 lw 1.5 lc rgb '#1f77b4' notitle, \
     '' index 2 using 2:3:5 with yerrorbars pt 2 ps 1.6 lw 1.5 lc rgb '#d62728' notitle, \
     '' index 3 using 2:3:5 with yerrorbars pt 3 ps 1.6 lw 1.5 lc rgb '#2ca02c' notitle, \
     '' index 4 using 2:3:5 with yerrorbars pt 4 ps 1.6 lw 1.5 lc rgb '#ff7f0e' notitle, \
     '' index 5 using 2:3:5 with yerrorbars pt 5 ps 1.6 lw 1.5 lc rgb '#9467bd' notitle, \
     '' index 6 using 2:3:5 with yerrorbars pt 6 ps 1.6 lw 1.5 lc rgb '#8c564b' notitle, \
     '' index 7 using 2:3:5 with yerrorbars pt 7 ps 1.6 lw 1.5 lc rgb '#e377c2' notitle, \
     '' index 8 using 2:3:5 with yerrorbars pt 8 ps 1.6 lw 1.5 lc rgb '#17becf' notitle
unset multiplot
unset output

reset
set terminal pngcairo size 1300,600 font 'Sans,12' noenhanced background rgb 'white'
set output 'overconsumption.png'
set title 'Over-consumed tokens against replay count and dedup TTL'
set grid lc rgb '#dddddd'
set multiplot layout 1,2
set ylabel 'over-consumed tokens per run, mean over traces'
set key top right box opaque font ',10'
set offsets graph 0.05, graph 0.05, graph 0.05, graph 0.05
set title 'against the replay count N (bars: paired 95 % interval from the baseline)'
set xlabel 'replay count N (replays after the first send)'
set xtics 1
set xrange [-0.5:*]
plot 'overconsumption.dat' index 0 using 1:3:5 with yerrorbars pt 6 ps 1.1 lc rgb '#b0b0b0' title 'configuration', \
     '' index 1 using 1:3:5 with yerrorbars pt 1 ps 1.6 lw 1.5 lc rgb '#1f77b4' title 'default (baseline)', \
     '' index 2 using 1:3:5 with yerrorbars pt 2 ps 1.6 lw 1.5 lc rgb '#d62728' title 'api_md', \
     '' index 3 using 1:3:5 with yerrorbars pt 3 ps 1.6 lw 1.5 lc rgb '#2ca02c' title 'strict_oldest', \
     '' index 4 using 1:3:5 with yerrorbars pt 4 ps 1.6 lw 1.5 lc rgb '#ff7f0e' title 'oldest_preferred', \
     '' index 5 using 1:3:5 with yerrorbars pt 5 ps 1.6 lw 1.5 lc rgb '#9467bd' title 'fastest_valid', \
     '' index 6 using 1:3:5 with yerrorbars pt 6 ps 1.6 lw 1.5 lc rgb '#8c564b' title 'bounded_collection', \
     '' index 7 using 1:3:5 with yerrorbars pt 7 ps 1.6 lw 1.5 lc rgb '#e377c2' title 'noC-default', \
     '' index 8 using 1:3:5 with yerrorbars pt 8 ps 1.6 lw 1.5 lc rgb '#17becf' title 'b_fixed-U5-N3'
set title 'against the dedup TTL (bars: paired 95 % interval from the baseline)'
set xlabel 'dedup TTL = horizon H (ms)'
set xtics autofreq
set xrange [0:*]
plot 'overconsumption.dat' index 0 using 2:3:5 with yerrorbars pt 6 ps 1.1 lc rgb '#b0b0b0' title 'configuration', \
     '' index 1 using 2:3:5 with yerrorbars pt 1 ps 1.6 lw 1.5 lc rgb '#1f77b4' notitle, \
     '' index 2 using 2:3:5 with yerrorbars pt 2 ps 1.6 lw 1.5 lc rgb '#d62728' notitle, \
     '' index 3 using 2:3:5 with yerrorbars pt 3 ps 1.6 lw 1.5 lc rgb '#2ca02c' notitle, \
     '' index 4 using 2:3:5 with yerrorbars pt 4 ps 1.6 lw 1.5 lc rgb '#ff7f0e' notitle, \
     '' index 5 using 2:3:5 with yerrorbars pt 5 ps 1.6 lw 1.5 lc rgb '#9467bd' notitle, \
     '' index 6 using 2:3:5 with yerrorbars pt 6 ps 1.6 lw 1.5 lc rgb '#8c564b' notitle, \
     '' index 7 using 2:3:5 with yerrorbars pt 7 ps 1.6 lw 1.5 lc rgb '#e377c2' notitle, \
     '' index 8 using 2:3:5 with yerrorbars pt 8 ps 1.6 lw 1.5 lc rgb '#17becf' notitle
unset multiplot
unset output
