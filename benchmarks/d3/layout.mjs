// Peer benchmark: run d3-force with the same forces/params as anthology.layout.ForceLayout.
//
// Usage: node layout.mjs [graph.json]   (reads JSON from stdin when no file is given)
// Input JSON:
//   { "n": int, "edges": [[s, t], ...], "ticks": int,
//     "positions": [[x, y], ...] | null,          // null: d3's phyllotaxis
//     "radii": [r, ...] | null,
//     "params": { center_strength, gravity, repel_strength, theta, distance_max (null = inf),
//                 link_distance, link_strength (null = d3 default), collide_radius,
//                 velocity_decay, alpha_min, alpha_decay, alpha_target } }
// Output JSON: { "ms_per_tick", "ticks", "alpha", "positions": [[x, y], ...] }
// Forces are registered in the engine's order: link, charge, center, x, y, collide.
// Only the tick loop is timed (not start-up, JSON parsing or force initialisation).
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import {
  forceCenter,
  forceCollide,
  forceLink,
  forceManyBody,
  forceSimulation,
  forceX,
  forceY,
} from "d3-force";

const text = process.argv[2] ? readFileSync(process.argv[2], "utf8") : readFileSync(0, "utf8");
const g = JSON.parse(text);
const p = g.params ?? {};
const num = (v, d) => (v === undefined || v === null ? d : v);

const nodes = Array.from({ length: g.n }, (_, i) => {
  const node = { index: i };
  if (g.positions && g.positions[i] && Number.isFinite(g.positions[i][0])) {
    node.x = g.positions[i][0];
    node.y = g.positions[i][1];
  }
  return node;
});
const links = g.edges.map(([s, t]) => ({ source: s, target: t }));

const sim = forceSimulation(nodes)
  .velocityDecay(num(p.velocity_decay, 0.4))
  .alphaMin(num(p.alpha_min, 0.001))
  .alphaDecay(num(p.alpha_decay, 1 - Math.pow(0.001, 1 / 300)))
  .alphaTarget(num(p.alpha_target, 0))
  .stop();

const link = forceLink(links).id((d) => d.index).distance(num(p.link_distance, 30));
if (p.link_strength !== undefined && p.link_strength !== null) link.strength(p.link_strength);
sim.force("link", link);
const charge = forceManyBody()
  .strength(num(p.repel_strength, -30))
  .theta(num(p.theta, 0.9))
  .distanceMax(num(p.distance_max, Infinity));
sim.force("charge", charge);
sim.force("center", forceCenter(0, 0).strength(num(p.center_strength, 1)));
const gravity = num(p.gravity, 0.05);
if (gravity) {
  sim.force("x", forceX(0).strength(gravity));
  sim.force("y", forceY(0).strength(gravity));
}
const collide = num(p.collide_radius, 0);
if (collide > 0) {
  const radii = g.radii ?? null;
  sim.force("collide", forceCollide((d) => collide * (radii ? radii[d.index] : 1)));
}

const ticks = num(g.ticks, 300);
const t0 = performance.now();
for (let k = 0; k < ticks; ++k) sim.tick();
const t1 = performance.now();

process.stdout.write(
  JSON.stringify({
    ms_per_tick: ticks ? (t1 - t0) / ticks : 0,
    ticks,
    alpha: sim.alpha(),
    positions: nodes.map((d) => [d.x, d.y]),
  }),
);
