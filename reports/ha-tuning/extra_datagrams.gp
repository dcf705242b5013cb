# Extra datagrams per request (replays + completion sends)
# Written by rl-testbed sweep report from extra_datagrams.dat; run: gnuplot extra_datagrams.gp (draws extra_datagrams.svg and extra_datagrams.png)
set encoding utf8

reset
set terminal svg size 1400,650 dynamic font 'Sans,13' noenhanced background rgb 'white'
set output 'extra_datagrams.svg'
set title 'Extra datagrams per request (replays + completion sends)'
set grid lc rgb '#dddddd'
set ylabel 'extra datagrams per request, mean over traces'
set xlabel 'configuration (coloured: highlighted; bars: paired 95 % interval from the baseline)'
set xtics rotate by 90 right font ',9' nomirror
set boxwidth 0.8
set style fill solid 0.85 border -1
set xrange [-1:49]
set yrange [0:*]
set grid noxtics ytics
plot 'extra_datagrams.dat' using 1:3:4:xtic(2) with boxes lc rgb variable notitle, \
     '' using 1:3:5 with yerrorbars pt -1 lw 1.5 lc rgb '#000000' notitle
unset output

reset
set terminal pngcairo size 1400,650 font 'Sans,12' noenhanced background rgb 'white'
set output 'extra_datagrams.png'
set title 'Extra datagrams per request (replays + completion sends)'
set grid lc rgb '#dddddd'
set ylabel 'extra datagrams per request, mean over traces'
set xlabel 'configuration (coloured: highlighted; bars: paired 95 % interval from the baseline)'
set xtics rotate by 90 right font ',9' nomirror
set boxwidth 0.8
set style fill solid 0.85 border -1
set xrange [-1:49]
set yrange [0:*]
set grid noxtics ytics
plot 'extra_datagrams.dat' using 1:3:4:xtic(2) with boxes lc rgb variable notitle, \
     '' using 1:3:5 with yerrorbars pt -1 lw 1.5 lc rgb '#000000' notitle
unset output
