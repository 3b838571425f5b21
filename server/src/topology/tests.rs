use super::draw::{layout, svg, NODE_H, NODE_W};
use std::collections::HashSet;

use super::*;

fn topic(name: &str) -> Key {
    Key::Topic { cluster: "local".into(), name: name.into() }
}

fn group(name: &str) -> Key {
    Key::Group(name.into())
}

fn sink(name: &str) -> Key {
    Key::Connector { connect: "main".into(), name: name.into() }
}

/// orders → payments-app, orders → audit-sink (commits as connect-audit-sink),
/// secret → orders-enricher ← orders, orders-enricher is a group that reads both.
fn shop() -> Graph {
    let mut g = Graph::default();
    g.flow(topic("orders"), group("payments-app"), Evidence::GroupReads);
    g.flow(topic("orders"), sink("audit-sink"), Evidence::ConnectorTopics);
    g.flow(sink("audit-sink"), group("connect-audit-sink"), Evidence::SinkGroup);
    g.flow(topic("orders"), group("enricher"), Evidence::GroupReads);
    g.flow(topic("secret"), group("enricher"), Evidence::GroupReads);
    g.flow(topic("secret"), group("secret-reader"), Evidence::GroupReads);
    g.describe(group("payments-app"), "Stable, lag 12");
    g
}

/// The view around `key`, which must be there and visible.
fn around(g: &Graph, key: &Key, hops: u8, visible: impl Fn(&Key) -> bool) -> View {
    let start = g.find(key).expect("the node is in the graph");
    g.around(&[start], hops, visible, 500).expect("the node is visible")
}

fn node<'a>(view: &'a View, key: &Key) -> &'a ViewNode {
    view.nodes.iter().find(|n| n.key == *key).expect("the node is in the view")
}

fn names(view: &View) -> Vec<&str> {
    view.nodes.iter().map(|n| n.key.name()).collect()
}

#[test]
fn one_hop_around_a_topic_keeps_its_readers_and_counts_nothing_hidden() {
    let g = shop();
    let view = around(&g, &topic("orders"), 1, |_| true);
    assert_eq!(names(&view), ["orders", "payments-app", "audit-sink", "enricher"]);
    assert!(view.nodes.iter().all(|n| n.hidden_up == 0 && n.hidden_down == 0));
    assert_eq!(view.edges.len(), 3);
    // Two hops reach the sink's group, and the other topic the enricher reads: what else a
    // reader of orders depends on. Its other reader is a third step away.
    let two = around(&g, &topic("orders"), 2, |_| true);
    let group_of_sink = node(&two, &group("connect-audit-sink"));
    assert_eq!(group_of_sink.hops, 2);
    assert_eq!(node(&two, &topic("secret")).hops, 2);
    assert!(!names(&two).contains(&"secret-reader"));
    let three = around(&g, &topic("orders"), 3, |_| true);
    assert_eq!(node(&three, &group("secret-reader")).hops, 3);
    // Up from the enricher: both topics it reads.
    let up = around(&g, &group("enricher"), 1, |_| true);
    assert_eq!(names(&up), ["orders", "enricher", "secret"]);
}

#[test]
fn a_hidden_neighbour_is_counted_never_named_and_never_walked_through() {
    let mut g = shop();
    // orders → a hidden copier → orders-copy: the copy is only reached through it.
    g.flow(topic("orders"), sink("copier"), Evidence::ConnectorTopics);
    g.flow(sink("copier"), topic("orders-copy"), Evidence::ConnectorTopics);
    let visible = |k: &Key| *k != topic("secret") && *k != sink("copier");
    let view = around(&g, &group("enricher"), 3, visible);
    assert!(!names(&view).contains(&"secret"));
    let enricher = node(&view, &group("enricher"));
    assert_eq!((enricher.hidden_up, enricher.hidden_down), (1, 0));
    let drawn = svg(&view, "local", Some(1), &HashSet::new(), "around the enricher");
    assert!(!drawn.contains("secret"), "{drawn}");
    assert!(drawn.contains("+1 hidden"), "{drawn}");
    let down = around(&g, &topic("orders"), 3, visible);
    assert!(!names(&down).contains(&"orders-copy"), "{:?}", names(&down));
    assert!(!names(&down).contains(&"copier"));
    assert_eq!(down.nodes[0].hidden_down, 1);
    // A hidden start has no view at all.
    assert_eq!(g.around(&[g.find(&topic("secret")).expect("secret")], 1, visible, 500), None);
}

#[test]
fn writers_sit_left_of_what_they_write_and_no_boxes_overlap() {
    let mut g = shop();
    g.flow(
        Key::Replication { name: "dr".into(), source: "remote".into(), target: "local".into() },
        topic("secret"),
        Evidence::ReplicationCopies,
    );
    g.flow(
        Key::Topic { cluster: "remote".into(), name: "secret".into() },
        Key::Replication { name: "dr".into(), source: "remote".into(), target: "local".into() },
        Evidence::ReplicationCopies,
    );
    let view = around(&g, &group("enricher"), 5, |_| true);
    let placed = layout(&view);
    for e in &view.edges {
        assert!(placed.layer[e.from] < placed.layer[e.to], "{e:?}");
        assert!(placed.at[e.from].0 < placed.at[e.to].0);
    }
    for a in 0..view.nodes.len() {
        for b in a + 1..view.nodes.len() {
            let ((ax, ay), (bx, by)) = (placed.at[a], placed.at[b]);
            let apart = (ax - bx).abs() >= NODE_W || (ay - by).abs() >= NODE_H;
            assert!(apart, "{:?} and {:?} overlap", view.nodes[a].key, view.nodes[b].key);
        }
    }
    assert!(placed.width > 0.0 && placed.height > 0.0);
}

#[test]
fn a_cycle_is_laid_out_and_drawn() {
    let mut g = Graph::default();
    g.flow(topic("a"), sink("copier"), Evidence::ConnectorTopics);
    g.flow(sink("copier"), topic("b"), Evidence::ConnectorTopics);
    g.flow(topic("b"), sink("back"), Evidence::ConnectorTopics);
    g.flow(sink("back"), topic("a"), Evidence::ConnectorTopics);
    let view = around(&g, &topic("a"), 5, |_| true);
    assert_eq!(view.nodes.len(), 4);
    let placed = layout(&view);
    let mut layers = placed.layer.clone();
    layers.sort();
    assert_eq!(layers, [0, 1, 2, 3]);
    assert!(svg(&view, "local", Some(0), &HashSet::new(), "a").ends_with("</svg>"));
}

#[test]
fn names_are_escaped_and_linked_by_their_encoding() {
    let mut g = Graph::default();
    g.flow(topic("a<b>&\"c\""), group("g/1 ?x"), Evidence::GroupReads);
    let view = around(&g, &topic("a<b>&\"c\""), 1, |_| true);
    let drawn = svg(&view, "local", Some(0), &HashSet::new(), "t");
    assert!(drawn.contains("a&lt;b&gt;&amp;&quot;c&quot;"), "{drawn}");
    assert!(drawn.contains(r#"href="/c/local/groups/g%2F1%20%3Fx""#), "{drawn}");
    assert!(!drawn.contains("<b>"));
}

fn producer(name: &str, transactional: bool) -> Key {
    Key::Producer { name: name.into(), transactional }
}

#[test]
fn a_filter_starts_from_every_match_keeps_the_nearest_and_counts_the_rest() {
    let mut g = shop();
    g.flow(producer("4001", false), topic("orders"), Evidence::ProducerState);
    let matched = g.matching(|k| k.name().contains("order"));
    assert_eq!(matched.len(), 1, "only the topic orders holds it");
    let starts = g.matching(|k| k.name().contains("secret"));
    let view = g.around(&starts, 1, |_| true, 500).expect("visible");
    // secret and secret-reader match; one step away: the enricher (secret's reader).
    assert_eq!(names(&view), ["enricher", "secret", "secret-reader"]);
    assert!(view.nodes.iter().filter(|n| n.hops == 0).count() == 2);
    assert_eq!(view.cut, 0);
    // Capped at two nodes: the matches stay (no step away), the enricher is counted.
    let capped = g.around(&starts, 1, |_| true, 2).expect("visible");
    assert_eq!(names(&capped), ["secret", "secret-reader"]);
    assert_eq!(capped.cut, 1);
    assert!(capped.edges.iter().all(|e| e.from < 2 && e.to < 2));
    // Hidden starts are no starts.
    assert_eq!(g.around(&starts, 1, |k| !k.name().contains("secret"), 500), None);
}

#[test]
fn producers_stand_left_of_their_topics_and_their_edges_are_inferred() {
    let mut g = shop();
    g.flow(producer("4001", false), topic("orders"), Evidence::ProducerState);
    g.flow(producer("billing-tx", true), topic("orders"), Evidence::Transaction);
    let view = around(&g, &topic("orders"), 1, |_| true);
    let placed = layout(&view);
    let at = |key: &Key| view.nodes.iter().position(|n| n.key == *key).expect("drawn");
    assert!(placed.layer[at(&producer("4001", false))] < placed.layer[at(&topic("orders"))]);
    let drawn = svg(&view, "local", Some(at(&topic("orders"))), &HashSet::new(), "t");
    assert!(
        drawn.contains(r#"href="/c/local/flow?kind=producer&amp;name=billing-tx&amp;hops=1""#),
        "{drawn}"
    );
    let inferred = view.edges.iter().filter(|e| !e.evidence.exact()).count();
    assert_eq!(inferred, 2);
    assert_eq!(drawn.matches("flow-edge flow-inferred").count(), 2, "{drawn}");
}

#[test]
fn a_streams_application_is_the_longest_group_id_a_name_starts_with() {
    let apps: HashSet<&str> = ["wordcount", "wordcount-v2", "shop"].into_iter().collect();
    let app = |name| streams_app(name, &apps);
    assert_eq!(app("wordcount-v2-counts-store-changelog"), Some("wordcount-v2"));
    assert_eq!(app("wordcount-KSTREAM-AGGREGATE-0000000003-repartition"), Some("wordcount"));
    assert_eq!(app("wordcount-0b7e6c3e-1d4b-4f6c-8f0a-2f0c3b1a9d7e-1"), Some("wordcount"));
    // The id must be followed by a dash: neither a longer word nor the id alone.
    assert_eq!(app("wordcounter-store-changelog"), None);
    assert_eq!(app("shop"), None);
    assert_eq!(app("orders-changelog"), None);
    assert!(is_streams_internal("wordcount-counts-store-changelog"));
    assert!(is_streams_internal("wordcount-counts-store-repartition"));
    assert!(!is_streams_internal("changelog-of-orders"));
}

#[test]
fn only_the_groups_said_removable_get_a_remove_link_to_their_delete_sheet() {
    let g = shop();
    let view = around(&g, &topic("orders"), 1, |_| true);
    let enricher = view.nodes.iter().position(|n| n.key == group("enricher")).expect("drawn");
    let drawn = svg(&view, "local", None, &HashSet::from([enricher]), "t");
    assert_eq!(drawn.matches(r#"class="flow-remove""#).count(), 1, "{drawn}");
    assert!(drawn.contains(r#"href="/c/local/groups/enricher?delete""#), "{drawn}");
    // No focus: no node is marked.
    assert!(!drawn.contains("flow-focus"));
}

#[test]
fn a_writer_nothing_writes_to_stands_just_left_of_what_it_writes() {
    // topic a → processor p → topic b, and a producer writing b alone: it stands in p's layer,
    // not in the first, so its edge crosses no box.
    let mut g = Graph::default();
    g.flow(topic("a"), Key::Processor("p".into()), Evidence::ProcessorPlan);
    g.flow(Key::Processor("p".into()), topic("b"), Evidence::ProcessorPlan);
    g.flow(producer("7", false), topic("b"), Evidence::ProducerState);
    let view = around(&g, &topic("b"), 2, |_| true);
    let placed = layout(&view);
    let at = |key: &Key| view.nodes.iter().position(|n| n.key == *key).expect("drawn");
    assert_eq!(placed.layer[at(&topic("a"))], 0);
    assert_eq!(placed.layer[at(&producer("7", false))], 1);
    assert_eq!(placed.layer[at(&topic("b"))], 2);
}
