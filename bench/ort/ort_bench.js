// ONNX Runtime side of graphd's model benchmark: median session.run time per model
// and batch, 2 intra-op threads, 1 inter-op thread (the sequential executor).
//
//   node bench/ort/ort_bench.js --modules build/bench/ort/node_modules \
//        --models build/bench/models --case mlp:1 --case resnet18:16 [--budget-s 3] [--gap-ms 1]
//
// --gap-ms N sleeps N ms before each timed run, as a server idles between requests:
// the runs then no longer follow each other with the caches and cores kept hot.
//
// Prints one JSON object per case on stdout:
//   {"model", "batch", "median_us", "p90_us", "iters", "checksum"}
// The input is the benchmark's fixed pattern (element i = ((i * 7919) % 1000) / 500 - 1),
// so checksums (the sum of the outputs) can be compared across runtimes.
'use strict';
const path = require('path');
const fs = require('fs');

function parseArgs(argv) {
  const args = { modules: 'build/bench/ort/node_modules', models: 'build/bench/models', cases: [], budgetS: 3,
                 minIters: 5, maxIters: 2000, gapMs: 0 };
  for (let i = 2; i < argv.length; i++) {
    const a = argv[i], v = argv[i + 1];
    if (a === '--modules') { args.modules = v; i++; }
    else if (a === '--models') { args.models = v; i++; }
    else if (a === '--case') { args.cases.push(v); i++; }
    else if (a === '--budget-s') { args.budgetS = Number(v); i++; }
    else if (a === '--min-iters') { args.minIters = Number(v); i++; }
    else if (a === '--max-iters') { args.maxIters = Number(v); i++; }
    else if (a === '--gap-ms') { args.gapMs = Number(v); i++; }
    else { throw new Error(`ort_bench: unknown argument ${a}`); }
  }
  return args;
}

// Element i of every benchmark input: a fixed pattern in [-1, 1).
function benchInput(n) {
  const x = new Float32Array(n);
  for (let i = 0; i < n; i++) x[i] = ((i * 7919) % 1000) / 500 - 1;
  return x;
}

function median(sorted) { return sorted[Math.floor((sorted.length - 1) / 2)]; }

async function main() {
  const args = parseArgs(process.argv);
  let ort;
  try {
    ort = require(path.resolve(args.modules, 'onnxruntime-node'));
  } catch (e) {
    console.error(`ort_bench: cannot load onnxruntime-node from ${args.modules} ` +
                  `(install it: npm ci --ignore-scripts in that directory's parent): ${e.message}`);
    process.exit(2);
  }
  const opts = { intraOpNumThreads: 2, interOpNumThreads: 1, executionMode: 'sequential',
                 graphOptimizationLevel: 'all', executionProviders: ['cpu'] };
  const sessions = {};
  for (const c of args.cases) {
    const [model, batchStr] = c.split(':');
    const batch = Number(batchStr);
    const meta = JSON.parse(fs.readFileSync(path.join(args.models, model + '.json'), 'utf8'));
    if (!sessions[model]) sessions[model] = await ort.InferenceSession.create(path.join(args.models, model + '.onnx'), opts);
    const sess = sessions[model];
    const dims = [batch, ...meta.shape];
    const feeds = { [meta.input]: new ort.Tensor('float32', benchInput(dims.reduce((a, b) => a * b, 1)), dims) };
    let out = await sess.run(feeds);  // warm-up
    await sess.run(feeds);
    const times = [];
    const deadline = performance.now() + args.budgetS * 1000;
    while (times.length < args.minIters || (times.length < args.maxIters && performance.now() < deadline)) {
      // --gap-ms: idle (asleep, as a server between requests) before each timed run.
      if (args.gapMs > 0) await new Promise((resolve) => setTimeout(resolve, args.gapMs));
      const t0 = performance.now();
      out = await sess.run(feeds);
      times.push((performance.now() - t0) * 1000);
    }
    times.sort((a, b) => a - b);
    let checksum = 0;
    for (const v of out[sess.outputNames[0]].data) checksum += v;
    console.log(JSON.stringify({ model, batch, median_us: median(times),
                                 p90_us: times[Math.floor(0.9 * (times.length - 1))], iters: times.length, checksum }));
  }
}

main().catch((e) => { console.error(`ort_bench: ${e.stack || e}`); process.exit(1); });
