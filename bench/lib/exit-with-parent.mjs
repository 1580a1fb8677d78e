// Preloaded (--import) into every benchmark child: the child exits when run.ts goes away,
// even if run.ts was killed before it could stop its children.
if (process.send) process.on('disconnect', () => process.exit(1));
