//! Search across the catalog of every visible cluster: topics, groups, brokers and subjects,
//! tolerant of small typos.

use super::Answer;
use leptos::server_fn::codec::GetUrl;
use serde::{Deserialize, Serialize};

/// The most hits one search answers.
pub const MAX_HITS: usize = 50;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HitKind {
    Topic,
    Group,
    Broker,
    Subject,
}

impl HitKind {
    pub fn label(self) -> &'static str {
        match self {
            HitKind::Topic => "topic",
            HitKind::Group => "group",
            HitKind::Broker => "broker",
            HitKind::Subject => "subject",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchHit {
    pub kind: HitKind,
    pub cluster: String,
    pub name: String,
    /// The page of the thing found.
    pub url: String,
}

/// `GET /api/search`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchResult {
    pub hits: Vec<SearchHit>,
}

/// The longest query the typo-tolerant step looks at: a longer one still matches names that
/// contain it, but is not compared letter by letter, so a search's work stays bounded.
pub const MAX_TYPO_QUERY: usize = 64;

/// A query, prepared once for matching many names.
pub struct Matcher {
    query: String,
    chars: Vec<char>,
}

impl Matcher {
    pub fn new(query: &str) -> Matcher {
        let query = query.trim().to_lowercase();
        let chars = query.chars().collect();
        Matcher { query, chars }
    }

    /// How well `name` matches, lower is better; `None` for no match. Case is ignored. In
    /// order: the whole name, a prefix, a substring, the query's characters in order (an
    /// abbreviation), then a substring with one typo (two for longer queries).
    pub fn score(&self, name: &str) -> Option<u32> {
        let q = &self.chars;
        if q.is_empty() {
            return None;
        }
        let name = name.to_lowercase();
        let length = name.chars().count() as u32;
        if name == self.query {
            return Some(0);
        }
        if name.starts_with(&self.query) {
            return Some(100 + length);
        }
        if let Some(at) = name.find(&self.query) {
            return Some(1_000 + at as u32 + length);
        }
        let n: Vec<char> = name.chars().collect();
        // The query's characters in order: close together, an abbreviation; spread over a
        // long name (`ordres` in `connect-it-redrive-sink`), a weak match that ranks below a
        // name one typo away, above one two typos away.
        let scattered = match subsequence_span(q, &n) {
            Some(span) if q.len() >= 2 && span <= 2 * q.len() => return Some(10_000 + length),
            Some(_) if q.len() >= 2 => Some(150_000 + length),
            _ => None,
        };
        let allowed = match q.len() {
            0..=3 => return scattered,
            4..=7 => 1,
            8..=MAX_TYPO_QUERY => 2,
            _ => return scattered,
        };
        // Fewer letters than the query less its typos cannot hold it.
        if n.len() + (allowed as usize) < q.len() {
            return scattered;
        }
        let typed = typos_in_best_window(q, &n, allowed).map(|typos| 100_000 * typos + length);
        match (typed, scattered) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// [`Matcher::score`] for one name.
pub fn match_score(query: &str, name: &str) -> Option<u32> {
    Matcher::new(query).score(name)
}

/// The shortest stretch of `n` that holds the characters of `q` in order, over the first few
/// places `q` can start; `None` when `n` does not hold them in order.
fn subsequence_span(q: &[char], n: &[char]) -> Option<usize> {
    let first = *q.first()?;
    let mut best: Option<usize> = None;
    for start in n.iter().enumerate().filter(|(_, c)| **c == first).map(|(i, _)| i).take(8) {
        let mut at = start;
        let mut found = true;
        for c in &q[1..] {
            match n[at + 1..].iter().position(|m| m == c) {
                Some(step) => at += step + 1,
                None => {
                    found = false;
                    break;
                }
            }
        }
        if !found {
            break;
        }
        let span = at - start + 1;
        best = Some(best.map_or(span, |b| b.min(span)));
    }
    best
}

/// The fewest edits (insert, delete, substitute, swap two neighbours) that turn `q` into some
/// substring of `n`, if at most `allowed`. Edit distance where the match may start and end
/// anywhere in `n` (free prefix and suffix), with transpositions (optimal string alignment),
/// kept in three rows rather than a table, and given up as soon as no cell of the last two
/// rows is within `allowed` (later rows can only cost more).
fn typos_in_best_window(q: &[char], n: &[char], allowed: u32) -> Option<u32> {
    let cols = n.len() + 1;
    // Rows i-2, i-1 and i.
    let mut before = vec![0u32; cols];
    let mut last = vec![0u32; cols];
    let mut row = vec![0u32; cols];
    for i in 1..=q.len() {
        row[0] = i as u32;
        for j in 1..cols {
            let cost = u32::from(q[i - 1] != n[j - 1]);
            let mut best = (last[j] + 1).min(row[j - 1] + 1).min(last[j - 1] + cost);
            if i > 1 && j > 1 && q[i - 1] == n[j - 2] && q[i - 2] == n[j - 1] {
                best = best.min(before[j - 2] + 1);
            }
            row[j] = best;
        }
        let floor = row.iter().chain(last.iter()).copied().min().unwrap_or(u32::MAX);
        if floor > allowed {
            return None;
        }
        std::mem::swap(&mut before, &mut last);
        std::mem::swap(&mut last, &mut row);
    }
    last.iter().copied().min().filter(|typos| *typos <= allowed)
}

serve! {
    /// Searches the catalog of the visible clusters, or only of `cluster`.
    GetUrl "search" fn search(
        q: super::Arg<String>, cluster: super::Arg<String>
    ) -> SearchResult as Search;
}

#[cfg(test)]
mod tests {
    use super::match_score;

    #[test]
    fn better_matches_score_lower() {
        let order = [
            "orders",          // exact
            "orders-archive",  // prefix
            "eu-orders",       // substring
            "old-orders-east", // later substring
        ];
        let scores: Vec<u32> = order.iter().map(|n| match_score("orders", n).expect(n)).collect();
        let mut sorted = scores.clone();
        sorted.sort();
        assert_eq!(scores, sorted, "{order:?}");
    }

    /// Regression (hardening issue): the typo step built a query × name table for every name,
    /// so a 200-character query over a large catalog did minutes of work. A long query now
    /// matches only names that contain it, and no query is compared beyond its typos.
    #[test]
    fn long_queries_do_bounded_work() {
        let long = "a".repeat(200);
        assert_eq!(match_score(&long, &long), Some(0));
        assert!(match_score(&long, &format!("x{long}")).is_some());
        let near = format!("{}b", "a".repeat(199));
        assert_eq!(match_score(&long, &near), None, "no typo step past the cap");
        let edge = "abcdefgh".repeat(8);
        let one_off = format!("{}x", &edge[..63]);
        assert!(match_score(&edge, &one_off).is_some(), "64 letters still allow typos");
    }

    #[test]
    fn the_cut_short_window_agrees_with_the_whole_table() {
        // Every query/name pair of a small alphabet: the early exit never changes an answer.
        let words = ["abcd", "abdc", "bacd", "abce", "xabcdx", "acbd", "abc", "aabbccdd", "dcba"];
        for q in words {
            for n in words {
                let (q, n): (Vec<char>, Vec<char>) = (q.chars().collect(), n.chars().collect());
                let full = whole_table(&q, &n);
                for allowed in 0..3 {
                    let want = (full <= allowed).then_some(full);
                    assert_eq!(super::typos_in_best_window(&q, &n, allowed), want);
                }
            }
        }
    }

    /// The plain table, as the typo step was first written: the oracle for the one above.
    fn whole_table(q: &[char], n: &[char]) -> u32 {
        let (rows, cols) = (q.len() + 1, n.len() + 1);
        let mut d = vec![vec![0u32; cols]; rows];
        for (i, row) in d.iter_mut().enumerate() {
            row[0] = i as u32;
        }
        for i in 1..rows {
            for j in 1..cols {
                let cost = u32::from(q[i - 1] != n[j - 1]);
                let mut best = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
                if i > 1 && j > 1 && q[i - 1] == n[j - 2] && q[i - 2] == n[j - 1] {
                    best = best.min(d[i - 2][j - 2] + 1);
                }
                d[i][j] = best;
            }
        }
        d[rows - 1].iter().copied().min().unwrap_or(u32::MAX)
    }

    #[test]
    fn typos_and_abbreviations_still_match() {
        assert!(match_score("ordres", "orders").is_some(), "a swap");
        assert!(match_score("ordrs", "orders").is_some(), "a missing letter");
        assert!(match_score("paymnets-avro", "payments-avro").is_some());
        assert!(match_score("ORDERS", "orders").is_some(), "case is ignored");
        assert!(match_score("pa", "payments-avro").is_some(), "a prefix");
        assert!(match_score("pmav", "payments-avro").is_some(), "an abbreviation");
        assert!(match_score("xyzzy", "orders").is_none());
        assert!(match_score("zzz", "orders").is_none(), "short queries need no typos");
        assert!(match_score("   ", "orders").is_none());
        assert!(
            match_score("ordres", "orders") > match_score("orde", "orders"),
            "a typo ranks below a prefix"
        );
    }

    /// Regression: `ordres` put a connector's group first (its letters in order across
    /// `connect-it-redrive-sink`) and the topic `orders`, one swap away, after it.
    #[test]
    fn letters_spread_over_a_long_name_rank_below_a_near_typo() {
        let spread = "connect-it-redrive-sink-1796487060588950201";
        assert!(match_score("ordres", spread).is_some(), "still found");
        assert!(match_score("ordres", "orders") < match_score("ordres", spread));
        assert!(match_score("ordrs", "orders") < match_score("ordrs", "old-records-stream"));
        // Close together it is still an abbreviation, above any typo.
        assert!(match_score("pymts", "payments") < match_score("pymts", "pyments-x"));
        assert!(match_score("pmav", "payments-avro").is_some(), "spread, with no typo match");
        // The tightest stretch counts, not the first.
        assert_eq!(
            super::subsequence_span(&['a', 'b'], &"a--ab".chars().collect::<Vec<_>>()),
            Some(2)
        );
        assert_eq!(super::subsequence_span(&['a', 'z'], &"abc".chars().collect::<Vec<_>>()), None);
    }
}
