// Validates Kubernetes objects (a multi-document YAML stream on stdin, e.g. the output
// of `kubectl kustomize DIR`) against the Kubernetes JSON schemas of kubernetes-models
// (and the Prometheus Operator's for ServiceMonitor), offline.
//
//   kubectl kustomize deploy/k8s/overlays/cpu | node validate.mjs
//
// Prints one line per object ("ok Kind/name" or "invalid Kind/name: errors") and
// exits 1 when any object is invalid or of a kind it has no schema for.
import { readFileSync } from "node:fs";
import yaml from "js-yaml";

// apiVersion -> the module directory holding its kinds.
function modulePath(apiVersion) {
  if (apiVersion === "monitoring.coreos.com/v1") return "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";
  if (!/^[a-z0-9.]*\/?v[0-9a-z]+$/.test(apiVersion)) return null;
  return `kubernetes-models/${apiVersion}`;
}

async function validate(doc) {
  const id = `${doc.kind}/${doc.metadata?.name ?? "?"}`;
  const dir = typeof doc.apiVersion === "string" ? modulePath(doc.apiVersion) : null;
  if (dir === null || typeof doc.kind !== "string" || !/^[A-Za-z]+$/.test(doc.kind)) {
    return `invalid ${id}: no schema for apiVersion ${doc.apiVersion}`;
  }
  let Model;
  try {
    Model = (await import(`${dir}/${doc.kind}`))[doc.kind];
  } catch (e) {
    return `invalid ${id}: no schema for ${doc.apiVersion} ${doc.kind}`;
  }
  try {
    new Model(doc).validate();
    return `ok ${id}`;
  } catch (e) {
    return `invalid ${id}: ${e.message}`;
  }
}

const docs = yaml.loadAll(readFileSync(0, "utf8")).filter((d) => d !== null && d !== undefined);
let bad = 0;
for (const doc of docs) {
  const line = await validate(doc);
  if (!line.startsWith("ok ")) bad++;
  console.log(line);
}
if (docs.length === 0) {
  console.log("invalid: no objects");
  bad++;
}
process.exit(bad === 0 ? 0 : 1);
