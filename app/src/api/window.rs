//! A window on a long catalog list: filter by name, sort by a column, then one page of rows.
//! The server applies it, so a page of a cluster with ten thousand topics carries only the rows
//! it shows; without one, a call answers every row.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use super::Arg;
use crate::error::ApiError;

/// Rows per page when the UI does not say.
pub const PAGE_SIZE: u64 = 100;

/// What part of a list to answer.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Window {
    /// Keep rows whose name contains this, ignoring case.
    pub q: Option<String>,
    /// The column to sort by; unknown columns sort by name.
    pub sort: Option<String>,
    /// Descending instead of ascending.
    pub desc: bool,
    pub offset: u64,
    /// `None` answers every row from `offset`.
    pub limit: Option<u64>,
}

/// A value to sort a column by. Unknown figures (`None`) sort after known ones either way.
#[derive(Clone, Debug, PartialEq, PartialOrd)]
pub enum SortKey {
    Text(String),
    Number(Option<f64>),
}

/// The rows of one window, and how many there were before paging.
pub struct Windowed<T> {
    pub rows: Vec<T>,
    /// Rows that passed the filter.
    pub matched: u64,
}

/// The optional arguments of a list call as sent, judged by the server after the decision.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WindowArgs {
    pub q: Arg<String>,
    pub sort: Arg<String>,
    pub desc: Arg<bool>,
    pub offset: Arg<u64>,
    pub limit: Arg<u64>,
}

impl WindowArgs {
    /// The window these arguments describe, or `BAD_REQUEST` naming the first bad one.
    pub fn parse(self) -> Result<Window, ApiError> {
        Ok(Window {
            q: self.q.optional("q")?,
            sort: self.sort.optional("sort")?,
            desc: self.desc.or("desc", false)?,
            offset: self.offset.or("offset", 0)?,
            limit: self.limit.optional("limit")?,
        })
    }
}

impl From<Window> for WindowArgs {
    fn from(w: Window) -> Self {
        WindowArgs {
            q: w.q.into(),
            sort: w.sort.into(),
            desc: w.desc.into(),
            offset: w.offset.into(),
            limit: w.limit.into(),
        }
    }
}

impl Window {
    pub fn apply<T>(
        &self, mut rows: Vec<T>, name: impl Fn(&T) -> &str,
        key: impl Fn(&T, &str) -> Option<SortKey>,
    ) -> Windowed<T> {
        if let Some(q) = self.q.as_deref().map(str::trim).filter(|q| !q.is_empty()) {
            let q = q.to_lowercase();
            rows.retain(|r| name(r).to_lowercase().contains(&q));
        }
        let column = self.sort.as_deref().unwrap_or("name");
        rows.sort_by(|a, b| {
            let by_key = match (key(a, column), key(b, column)) {
                (Some(x), Some(y)) => compare(&x, &y, self.desc),
                _ => Ordering::Equal,
            };
            // Ties (and the name column itself) fall back to the name, ascending.
            by_key.then_with(|| name(a).cmp(name(b)))
        });
        if self.desc && key_is_name(column) {
            rows.reverse();
        }
        let matched = rows.len() as u64;
        let start = usize::try_from(self.offset).unwrap_or(usize::MAX).min(rows.len());
        let mut rows: Vec<T> = rows.into_iter().skip(start).collect();
        if let Some(limit) = self.limit {
            rows.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        }
        Windowed { rows, matched }
    }
}

fn key_is_name(column: &str) -> bool {
    column == "name"
}

fn compare(a: &SortKey, b: &SortKey, desc: bool) -> Ordering {
    let ordering = match (a, b) {
        (SortKey::Number(Some(x)), SortKey::Number(Some(y))) => {
            x.partial_cmp(y).unwrap_or(Ordering::Equal)
        }
        // Unknown figures go last, in either direction.
        (SortKey::Number(None), SortKey::Number(Some(_))) => return Ordering::Greater,
        (SortKey::Number(Some(_)), SortKey::Number(None)) => return Ordering::Less,
        (x, y) => x.partial_cmp(y).unwrap_or(Ordering::Equal),
    };
    if desc {
        ordering.reverse()
    } else {
        ordering
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows() -> Vec<(&'static str, Option<f64>)> {
        vec![
            ("orders", Some(5.0)),
            ("Payments", None),
            ("audit", Some(9.0)),
            ("order-dlq", Some(1.0)),
        ]
    }

    fn run(window: Window) -> (Vec<&'static str>, u64) {
        let out = window.apply(
            rows(),
            |r| r.0,
            |r, column| match column {
                "rate" => Some(SortKey::Number(r.1)),
                "name" => None,
                _ => None,
            },
        );
        (out.rows.into_iter().map(|r| r.0).collect(), out.matched)
    }

    #[test]
    fn filters_sorts_and_pages() {
        let all = run(Window::default());
        assert_eq!(all.0, vec!["Payments", "audit", "order-dlq", "orders"]);
        assert_eq!(all.1, 4);

        let filtered = run(Window { q: Some(" ORDER ".into()), ..Window::default() });
        assert_eq!(filtered, (vec!["order-dlq", "orders"], 2));

        let by_rate = run(Window { sort: Some("rate".into()), ..Window::default() });
        assert_eq!(by_rate.0, vec!["order-dlq", "orders", "audit", "Payments"]);
        let by_rate_desc =
            run(Window { sort: Some("rate".into()), desc: true, ..Window::default() });
        assert_eq!(
            by_rate_desc.0,
            vec!["audit", "orders", "order-dlq", "Payments"],
            "unknown figures stay last"
        );

        let page = run(Window { offset: 1, limit: Some(2), ..Window::default() });
        assert_eq!(page, (vec!["audit", "order-dlq"], 4));
        let past_the_end = run(Window { offset: 10, limit: Some(2), ..Window::default() });
        assert_eq!(past_the_end, (vec![], 4));
        let name_desc = run(Window { desc: true, ..Window::default() });
        assert_eq!(name_desc.0, vec!["orders", "order-dlq", "audit", "Payments"]);
    }
}
