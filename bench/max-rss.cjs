// Preloaded into the benchmarked `idserver export|import` child: its peak resident set size (kB), as the OS counted it, on exit.
process.on('exit', () => process.stderr.write(`maxRSS ${process.resourceUsage().maxRSS}\n`));
