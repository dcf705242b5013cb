# Convergence time per fault trace
# Written by rl-testbed sweep report from convergence.dat; run: gnuplot convergence.gp (draws convergence.svg and convergence.png)
set encoding utf8

reset
set terminal svg size 1100,600 dynamic font 'Sans,13' noenhanced background rgb 'white'
set output 'convergence.svg'
set title 'Convergence time per fault trace'
set grid lc rgb '#dddddd'
set ylabel 'convergence time after the last fault, mean over seeds (ms)'
set xlabel 'fault trace (bars: paired 95 % interval of the difference from the baseline)'
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set yrange [0:637.209111]
set grid noxtics ytics
set key outside right top box opaque
set xtics font ',10'
plot 'convergence.dat' using 2:3:xtic(1) lc rgb '#1f77b4' title 'default (baseline)', \
     'convergence.dat' using 4:5:xtic(1) lc rgb '#d62728' title 'api_md', \
     'convergence.dat' using 6:7:xtic(1) lc rgb '#2ca02c' title 'strict_oldest', \
     'convergence.dat' using 8:9:xtic(1) lc rgb '#ff7f0e' title 'oldest_preferred', \
     'convergence.dat' using 10:11:xtic(1) lc rgb '#9467bd' title 'fastest_valid', \
     'convergence.dat' using 12:13:xtic(1) lc rgb '#8c564b' title 'bounded_collection', \
     'convergence.dat' using 14:15:xtic(1) lc rgb '#e377c2' title 'noC-default', \
     'convergence.dat' using 16:17:xtic(1) lc rgb '#17becf' title 'b_fixed-U5-N3'
unset output

reset
set terminal pngcairo size 1100,600 font 'Sans,12' noenhanced background rgb 'white'
set output 'convergence.png'
set title 'Convergence time per fault trace'
set grid lc rgb '#dddddd'
set ylabel 'convergence time after the last fault, mean over seeds (ms)'
set xlabel 'fault trace (bars: paired 95 % interval of the difference from the baseline)'
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set yrange [0:637.209111]
set grid noxtics ytics
set key outside right top box opaque
set xtics font ',10'
plot 'convergence.dat' using 2:3:xtic(1) lc rgb '#1f77b4' title 'default (baseline)', \
     'convergence.dat' using 4:5:xtic(1) lc rgb '#d62728' title 'api_md', \
     'convergence.dat' using 6:7:xtic(1) lc rgb '#2ca02c' title 'strict_oldest', \
     'convergence.dat' using 8:9:xtic(1) lc rgb '#ff7f0e' title 'oldest_preferred', \
     'convergence.dat' using 10:11:xtic(1) lc rgb '#9467bd' title 'fastest_valid', \
     'convergence.dat' using 12:13:xtic(1) lc rgb '#8c564b' title 'bounded_collection', \
     'convergence.dat' using 14:15:xtic(1) lc rgb '#e377c2' title 'noC-default', \
     'convergence.dat' using 16:17:xtic(1) lc rgb '#17becf' title 'b_fixed-U5-N3'
unset output
