//! A view laid out left to right in layers (what writes, the topics, what reads them) and
//! drawn as SVG: each node a link to its page, each edge a curve from its writer to its
//! reader, an inferred edge dashed, hidden neighbours as a count beside the node. Colours come
//! from the page's stylesheet through class names, so both themes apply.

use std::collections::HashSet;
use std::fmt::Write as _;

use app::format::{escape_html, query_value};

use super::{Key, View};

pub(crate) const NODE_W: f32 = 200.0;
pub(crate) const NODE_H: f32 = 48.0;
const GAP_X: f32 = 72.0;
const GAP_Y: f32 = 20.0;
const PAD: f32 = 16.0;
/// Characters of a name, and of the line under it, shown on a node; the rest is in its title.
const NAME_CHARS: usize = 24;
const DETAIL_CHARS: usize = 32;
/// Ordering passes over the layers (down, then up, each time).
const PASSES: usize = 4;

/// Where each node of a view goes, by its place in [`View::nodes`].
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub layer: Vec<usize>,
    /// The top-left corner of each node's box.
    pub at: Vec<(f32, f32)>,
    pub width: f32,
    pub height: f32,
}

/// The layers and positions of `view`'s nodes: each node one layer right of the furthest
/// node writing to it (edges that close a cycle are left out of that), ordered within its
/// layer to keep edges short.
pub fn layout(view: &View) -> Layout {
    let n = view.nodes.len();
    let start_order = {
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| {
            let (ka, kb) = (&view.nodes[a].key, &view.nodes[b].key);
            (ka.rank(), ka).cmp(&(kb.rank(), kb))
        });
        order
    };
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
    for e in &view.edges {
        out[e.from].push(e.to);
    }
    let forward = acyclic(&out, &start_order);
    // Longest path from the sources, in topological order of the edges kept.
    let mut incoming = vec![0usize; n];
    for &to in forward.iter().flatten() {
        incoming[to] += 1;
    }
    let mut layer = vec![0usize; n];
    let mut ready: Vec<usize> = start_order.iter().copied().filter(|&v| incoming[v] == 0).collect();
    ready.reverse();
    while let Some(v) = ready.pop() {
        for &w in &forward[v] {
            layer[w] = layer[w].max(layer[v] + 1);
            incoming[w] -= 1;
            if incoming[w] == 0 {
                ready.push(w);
            }
        }
    }
    // A node nothing writes to (a producer, a source) stands just left of the nearest it
    // writes, not in the first layer: a long edge would cross the boxes between.
    let mut written = vec![false; n];
    for &w in forward.iter().flatten() {
        written[w] = true;
    }
    for v in 0..n {
        if let Some(nearest) = forward[v].iter().map(|&w| layer[w]).min() {
            if !written[v] {
                layer[v] = nearest.saturating_sub(1);
            }
        }
    }
    let layers = layer.iter().max().map_or(0, |m| m + 1);
    let mut rows: Vec<Vec<usize>> = vec![Vec::new(); layers];
    for &v in &start_order {
        rows[layer[v]].push(v);
    }
    order_rows(&mut rows, &forward, &layer);
    let tallest = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut at = vec![(0.0, 0.0); n];
    for (l, row) in rows.iter().enumerate() {
        let shift = (tallest - row.len()) as f32 * (NODE_H + GAP_Y) / 2.0;
        for (i, &v) in row.iter().enumerate() {
            at[v] = (PAD + l as f32 * (NODE_W + GAP_X), PAD + shift + i as f32 * (NODE_H + GAP_Y));
        }
    }
    let width =
        if layers == 0 { 0.0 } else { 2.0 * PAD + layers as f32 * (NODE_W + GAP_X) - GAP_X };
    let height =
        if tallest == 0 { 0.0 } else { 2.0 * PAD + tallest as f32 * (NODE_H + GAP_Y) - GAP_Y };
    Layout { layer, at, width, height }
}

/// The edges of `out` without those that close a cycle (found by a depth-first walk from the
/// nodes in `order`, without recursion).
fn acyclic(out: &[Vec<usize>], order: &[usize]) -> Vec<Vec<usize>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let mut mark = vec![Mark::New; out.len()];
    let mut kept: Vec<Vec<usize>> = vec![Vec::new(); out.len()];
    for &root in order {
        if mark[root] != Mark::New {
            continue;
        }
        mark[root] = Mark::Open;
        let mut stack = vec![(root, 0usize)];
        while let Some((v, i)) = stack.pop() {
            let Some(&w) = out[v].get(i) else {
                mark[v] = Mark::Done;
                continue;
            };
            stack.push((v, i + 1));
            match mark[w] {
                Mark::Open => {} // closes a cycle: left out
                Mark::Done => kept[v].push(w),
                Mark::New => {
                    kept[v].push(w);
                    mark[w] = Mark::Open;
                    stack.push((w, 0));
                }
            }
        }
    }
    kept
}

/// Orders each layer by the mean place of its neighbours in the layer before (going right),
/// then in the layer after (going left), a few times; ties keep the order they had.
fn order_rows(rows: &mut [Vec<usize>], forward: &[Vec<usize>], layer: &[usize]) {
    let n = layer.len();
    let mut back: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (v, tos) in forward.iter().enumerate() {
        for &w in tos {
            back[w].push(v);
        }
    }
    let mut place = vec![0usize; n];
    let set_places = |rows: &[Vec<usize>], place: &mut [usize]| {
        for row in rows {
            for (i, &v) in row.iter().enumerate() {
                place[v] = i;
            }
        }
    };
    set_places(rows, &mut place);
    for _ in 0..PASSES {
        for l in 1..rows.len() {
            sort_by_neighbours(&mut rows[l], &back, &place);
            set_places(rows, &mut place);
        }
        for l in (0..rows.len().saturating_sub(1)).rev() {
            sort_by_neighbours(&mut rows[l], forward, &place);
            set_places(rows, &mut place);
        }
    }
}

fn sort_by_neighbours(row: &mut [usize], neighbours: &[Vec<usize>], place: &[usize]) {
    let key = |v: usize| -> f32 {
        let near = &neighbours[v];
        if near.is_empty() {
            place[v] as f32
        } else {
            near.iter().map(|&w| place[w] as f32).sum::<f32>() / near.len() as f32
        }
    };
    let mut keyed: Vec<(f32, usize, usize)> =
        row.iter().enumerate().map(|(i, &v)| (key(v), i, v)).collect();
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    for (slot, (_, _, v)) in row.iter_mut().zip(keyed) {
        *slot = v;
    }
}

/// The page of a node, in the UI, for the cluster `drawn`.
pub fn href(key: &Key, drawn: &str) -> String {
    match key {
        Key::Topic { cluster, name } => {
            format!("/c/{}/topics/{}", query_value(cluster), query_value(name))
        }
        Key::Group(id) => format!("/c/{}/groups/{}", query_value(drawn), query_value(id)),
        Key::Connector { connect, name } => format!(
            "/c/{}/connectors/{}/{}",
            query_value(drawn),
            query_value(connect),
            query_value(name)
        ),
        Key::Replication { name, .. } => {
            format!("/c/{}/replications/{}", query_value(drawn), query_value(name))
        }
        Key::Processor(name) => {
            format!("/c/{}/processors/{}", query_value(drawn), query_value(name))
        }
        // A producer has no page of its own: the flow around it is what klens knows of it.
        Key::Producer { name, .. } => {
            format!(
                "/c/{}/flow?kind=producer&name={}&hops=1",
                query_value(drawn),
                query_value(name)
            )
        }
    }
}

/// `view` drawn as SVG for the cluster `drawn`, the node at `focus` marked, a Remove link under
/// each group of `removable` (to its page's Delete sheet); `title` says what it shows, for
/// readers of the page that do not see it.
pub fn svg(
    view: &View, drawn: &str, focus: Option<usize>, removable: &HashSet<usize>, title: &str,
) -> String {
    let placed = layout(view);
    let mut s = String::new();
    let (w, h) = (placed.width.max(NODE_W), placed.height.max(NODE_H));
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="flow" viewBox="0 0 {w} {h}" width="{w}" height="{h}" style="min-width:{}px" role="group" aria-label="{}">"#,
        // A wide flow shrinks to its box down to this, then scrolls inside it.
        (w * 0.7).round(),
        escape(title)
    );
    s.push_str(r#"<defs><marker id="flow-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0L10,5L0,10z" class="flow-arrowhead"/></marker></defs>"#);
    for e in &view.edges {
        let (fx, fy) = placed.at[e.from];
        let (tx, ty) = placed.at[e.to];
        let (x1, y1, x2, y2) = (fx + NODE_W, fy + NODE_H / 2.0, tx, ty + NODE_H / 2.0);
        let bend = ((x2 - x1).abs() / 2.0).max(40.0);
        let class = if e.evidence.exact() { "flow-edge" } else { "flow-edge flow-inferred" };
        let _ = write!(
            s,
            r#"<path class="{class}" d="M{x1},{y1} C{},{y1} {},{y2} {x2},{y2}" marker-end="url(#flow-arrow)"><title>{}</title></path>"#,
            x1 + bend,
            x2 - bend,
            escape(e.evidence.words())
        );
    }
    for (i, node) in view.nodes.iter().enumerate() {
        let (x, y) = placed.at[i];
        let key = &node.key;
        let mut class = format!("flow-node flow-{}", key.kind());
        if Some(i) == focus {
            class.push_str(" flow-focus");
        }
        let mut about = key.kind().to_string();
        if let Key::Topic { cluster, .. } = key {
            if cluster != drawn {
                let _ = write!(about, " on {cluster}");
            }
        }
        if !node.detail.is_empty() {
            let _ = write!(about, " · {}", node.detail);
        }
        // A producer's box is told by its colour and its name: the line under the name is
        // its detail alone, which is what tells one from another.
        let (shown, under) = match key {
            Key::Producer { name, transactional: false } => {
                (format!("producer {name}"), node.detail.clone())
            }
            Key::Producer { .. } => (key.name().to_string(), node.detail.clone()),
            _ => (key.name().to_string(), about.clone()),
        };
        let _ = write!(
            s,
            r#"<a href="{}" class="{class}"><title>{} ({})</title><rect x="{x}" y="{y}" width="{NODE_W}" height="{NODE_H}" rx="6"/><text class="flow-name" x="{}" y="{}">{}</text><text class="flow-detail" x="{}" y="{}">{}</text></a>"#,
            escape(&href(key, drawn)),
            escape(key.name()),
            escape(&about),
            x + 10.0,
            y + 20.0,
            escape(&label(&shown, NAME_CHARS)),
            x + 10.0,
            y + 38.0,
            escape(&label(&under, DETAIL_CHARS)),
        );
        if let (true, Key::Group(id)) = (removable.contains(&i), key) {
            let _ = write!(
                s,
                r#"<a href="{}" class="flow-remove"><title>Delete group {} (no members, nothing left to read)</title><text x="{}" y="{}" text-anchor="end">Remove</text></a>"#,
                escape(&format!("{}?delete", href(key, drawn))),
                escape(id),
                x + NODE_W - 8.0,
                y + NODE_H + 14.0,
            );
        }
        for (count, hx, anchor) in
            [(node.hidden_up, x - 6.0, "end"), (node.hidden_down, x + NODE_W + 6.0, "start")]
        {
            if count > 0 {
                let _ = write!(
                    s,
                    r#"<text class="flow-hidden" x="{hx}" y="{}" text-anchor="{anchor}">+{count} hidden</text>"#,
                    y + NODE_H / 2.0 + 4.0
                );
            }
        }
    }
    s.push_str("</svg>");
    s
}

/// A name cut to what fits a node, with an ellipsis.
fn label(text: &str, most: usize) -> String {
    if text.chars().count() <= most {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(most - 1).collect();
    cut.push('…');
    cut
}

/// Text and attribute values as XML reads them.
fn escape(text: &str) -> String {
    // What XML 1.0 cannot hold at all (Kafka's names cannot have it; a group id can).
    let held = |c: char| (c as u32) >= 0x20 || matches!(c, '\t' | '\n' | '\r');
    escape_html(&text.chars().map(|c| if held(c) { c } else { '\u{FFFD}' }).collect::<String>())
}
