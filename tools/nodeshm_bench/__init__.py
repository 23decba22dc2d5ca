"""nodeshm-bench: one command for the nodeshm benchmarks.

Each subcommand launches the benchmark program(s) with oshrun and --csv, checks and parses
their rows (the contract in bench/bench_util.h), and prints plain tables with a "who wins"
column; --csv / --json print the rows for machines.  `report` runs a default suite sized for
the machine and writes report.md, PNG plots, results.csv/json and tuning.conf (the thresholds
the library reads: src/core/tuning.h).

The driver needs only the Python standard library; plots need matplotlib.  When the
interpreter lacks it, the driver re-executes itself with the project's venv python (.deps/py,
made by tools/bootstrap-py.sh from `make bench`) if that exists.

The command is a launcher configured by CMake (tools/nodeshm-bench.in: the configured values,
handed to config.py) that calls cli.entry.  Modules:
  cli         the command line and the dispatch to a subcommand
  subcommand  what a subcommand provides (how to add one); registry: which there are
  programs    the subcommands that run bench/'s programs (map, p2p, pairs, coll, dt, seed-*)
  runners     launching one program under oshrun; the CSV contract's rows (rows)
  tables      who-wins tables and summary; plots: the PNGs
  tuning      the thresholds of tuning.conf; report: the suite, report.md and the rest
  machine     topology and MPI; text: notes and number formats; config: configured values
"""
