# Availability against loss rate
# Written by rl-testbed sweep report from availability_loss.dat; run: gnuplot availability_loss.gp (draws availability_loss.svg and availability_loss.png)
set encoding utf8

reset
set terminal svg size 1400,650 dynamic font 'Sans,13' noenhanced background rgb 'white'
set output 'availability_loss.svg'
set title 'Availability against loss rate'
set grid lc rgb '#dddddd'
set multiplot layout 1,2
set xlabel 'Bernoulli loss rate on every link (%)'
set offsets graph 0.03, graph 0.03, 0, 0
set format y '%g'
set key bottom left box opaque font ',10'
set title 'availability, every configuration (bars: paired 95 % interval from the baseline)'
set ylabel 'availability (decided / submitted)'
set autoscale y
plot 'availability_loss.dat' index 7 using 1:2 with lines lw 1 lc rgb '#b0b0b0' title 'other configurations', \
     'availability_loss.dat' index 8 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 9 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 10 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 11 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 12 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 13 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 14 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 15 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 16 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 18 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 19 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 20 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 21 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 22 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 23 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 24 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 25 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 26 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 27 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 28 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 29 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 30 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 31 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 32 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 33 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 34 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 35 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 36 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 37 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 38 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 39 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 40 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 41 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 42 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 43 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 44 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 45 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 46 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 47 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 48 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 0 using 1:2:6 with yerrorlines lw 2 pt 1 ps 1.2 lc rgb '#1f77b4' title 'default (baseline)', \
     'availability_loss.dat' index 1 using 1:2:6 with yerrorlines lw 2 pt 2 ps 1.2 lc rgb '#d62728' title 'api_md', \
     'availability_loss.dat' index 2 using 1:2:6 with yerrorlines lw 2 pt 3 ps 1.2 lc rgb '#2ca02c' title 'strict_oldest', \
     'availability_loss.dat' index 3 using 1:2:6 with yerrorlines lw 2 pt 4 ps 1.2 lc rgb '#ff7f0e' title 'oldest_preferred', \
     'availability_loss.dat' index 4 using 1:2:6 with yerrorlines lw 2 pt 5 ps 1.2 lc rgb '#9467bd' title 'fastest_valid', \
     'availability_loss.dat' index 5 using 1:2:6 with yerrorlines lw 2 pt 6 ps 1.2 lc rgb '#8c564b' title 'bounded_collection', \
     'availability_loss.dat' index 6 using 1:2:6 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#e377c2' title 'noC-default', \
     'availability_loss.dat' index 17 using 1:2:6 with yerrorlines lw 2 pt 8 ps 1.2 lc rgb '#17becf' title 'b_fixed-U5-N3'
set title 'difference from the baseline (default), paired 95 % intervals'
set ylabel 'availability difference (percentage points)'
set key top left box opaque font ',9'
set xzeroaxis lt -1 lw 1
plot 'availability_loss.dat' index 1 using ($1-1.050):3:4:5 with yerrorlines lw 1.5 pt 2 ps 1 lc rgb '#d62728' title 'api_md', \
     'availability_loss.dat' index 2 using ($1-0.700):3:4:5 with yerrorlines lw 1.5 pt 3 ps 1 lc rgb '#2ca02c' title 'strict_oldest', \
     'availability_loss.dat' index 3 using ($1-0.350):3:4:5 with yerrorlines lw 1.5 pt 4 ps 1 lc rgb '#ff7f0e' title 'oldest_preferred', \
     'availability_loss.dat' index 4 using ($1+0.000):3:4:5 with yerrorlines lw 1.5 pt 5 ps 1 lc rgb '#9467bd' title 'fastest_valid', \
     'availability_loss.dat' index 5 using ($1+0.350):3:4:5 with yerrorlines lw 1.5 pt 6 ps 1 lc rgb '#8c564b' title 'bounded_collection', \
     'availability_loss.dat' index 6 using ($1+0.700):3:4:5 with yerrorlines lw 1.5 pt 7 ps 1 lc rgb '#e377c2' title 'noC-default', \
     'availability_loss.dat' index 17 using ($1+1.050):3:4:5 with yerrorlines lw 1.5 pt 8 ps 1 lc rgb '#17becf' title 'b_fixed-U5-N3'
unset multiplot
unset output

reset
set terminal pngcairo size 1400,650 font 'Sans,12' noenhanced background rgb 'white'
set output 'availability_loss.png'
set title 'Availability against loss rate'
set grid lc rgb '#dddddd'
set multiplot layout 1,2
set xlabel 'Bernoulli loss rate on every link (%)'
set offsets graph 0.03, graph 0.03, 0, 0
set format y '%g'
set key bottom left box opaque font ',10'
set title 'availability, every configuration (bars: paired 95 % interval from the baseline)'
set ylabel 'availability (decided / submitted)'
set autoscale y
plot 'availability_loss.dat' index 7 using 1:2 with lines lw 1 lc rgb '#b0b0b0' title 'other configurations', \
     'availability_loss.dat' index 8 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 9 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 10 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 11 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 12 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 13 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 14 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 15 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 16 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 18 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 19 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 20 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 21 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 22 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 23 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 24 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 25 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 26 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 27 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 28 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 29 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 30 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 31 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 32 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 33 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 34 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 35 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 36 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 37 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 38 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 39 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 40 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 41 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 42 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 43 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 44 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 45 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 46 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 47 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 48 using 1:2 with lines lw 1 lc rgb '#b0b0b0' notitle, \
     'availability_loss.dat' index 0 using 1:2:6 with yerrorlines lw 2 pt 1 ps 1.2 lc rgb '#1f77b4' title 'default (baseline)', \
     'availability_loss.dat' index 1 using 1:2:6 with yerrorlines lw 2 pt 2 ps 1.2 lc rgb '#d62728' title 'api_md', \
     'availability_loss.dat' index 2 using 1:2:6 with yerrorlines lw 2 pt 3 ps 1.2 lc rgb '#2ca02c' title 'strict_oldest', \
     'availability_loss.dat' index 3 using 1:2:6 with yerrorlines lw 2 pt 4 ps 1.2 lc rgb '#ff7f0e' title 'oldest_preferred', \
     'availability_loss.dat' index 4 using 1:2:6 with yerrorlines lw 2 pt 5 ps 1.2 lc rgb '#9467bd' title 'fastest_valid', \
     'availability_loss.dat' index 5 using 1:2:6 with yerrorlines lw 2 pt 6 ps 1.2 lc rgb '#8c564b' title 'bounded_collection', \
     'availability_loss.dat' index 6 using 1:2:6 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#e377c2' title 'noC-default', \
     'availability_loss.dat' index 17 using 1:2:6 with yerrorlines lw 2 pt 8 ps 1.2 lc rgb '#17becf' title 'b_fixed-U5-N3'
set title 'difference from the baseline (default), paired 95 % intervals'
set ylabel 'availability difference (percentage points)'
set key top left box opaque font ',9'
set xzeroaxis lt -1 lw 1
plot 'availability_loss.dat' index 1 using ($1-1.050):3:4:5 with yerrorlines lw 1.5 pt 2 ps 1 lc rgb '#d62728' title 'api_md', \
     'availability_loss.dat' index 2 using ($1-0.700):3:4:5 with yerrorlines lw 1.5 pt 3 ps 1 lc rgb '#2ca02c' title 'strict_oldest', \
     'availability_loss.dat' index 3 using ($1-0.350):3:4:5 with yerrorlines lw 1.5 pt 4 ps 1 lc rgb '#ff7f0e' title 'oldest_preferred', \
     'availability_loss.dat' index 4 using ($1+0.000):3:4:5 with yerrorlines lw 1.5 pt 5 ps 1 lc rgb '#9467bd' title 'fastest_valid', \
     'availability_loss.dat' index 5 using ($1+0.350):3:4:5 with yerrorlines lw 1.5 pt 6 ps 1 lc rgb '#8c564b' title 'bounded_collection', \
     'availability_loss.dat' index 6 using ($1+0.700):3:4:5 with yerrorlines lw 1.5 pt 7 ps 1 lc rgb '#e377c2' title 'noC-default', \
     'availability_loss.dat' index 17 using ($1+1.050):3:4:5 with yerrorlines lw 1.5 pt 8 ps 1 lc rgb '#17becf' title 'b_fixed-U5-N3'
unset multiplot
unset output
