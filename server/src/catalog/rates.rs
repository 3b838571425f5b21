//! Produce rates from successive high watermarks: records per second over about the last
//! minute, per topic.

use std::collections::{HashMap, VecDeque};

/// How far back a rate looks.
const WINDOW_MS: i64 = 60_000;
/// Rates kept per topic for its sparkline: ten minutes at the metadata refresh pace.
pub const TREND_POINTS: usize = 40;

/// Samples of each topic's summed high watermark, oldest first, spanning at most the window,
/// and each topic's recent rates, oldest first.
#[derive(Debug, Default)]
pub struct RateHistory {
    samples: VecDeque<(i64, HashMap<String, i64>)>,
    trend: HashMap<String, VecDeque<f32>>,
}

impl RateHistory {
    /// Adds a sample taken at `now_ms` and answers the rate of every topic that has an older
    /// sample inside the window, measured from the oldest such sample. A topic whose total went down (deleted and created again) has
    /// no rate until the window holds only its new life.
    pub fn record(&mut self, now_ms: i64, totals: HashMap<String, i64>) -> HashMap<String, f64> {
        while self.samples.front().is_some_and(|(t, _)| *t < now_ms - WINDOW_MS || *t >= now_ms) {
            self.samples.pop_front();
        }
        // Each topic against the oldest sample in the window that knew it.
        let rates: HashMap<String, f64> = totals
            .iter()
            .filter_map(|(topic, now)| {
                let (then, before) = self
                    .samples
                    .iter()
                    .find_map(|(t, old)| old.get(topic).map(|before| (*t, *before)))?;
                let seconds = (now_ms - then) as f64 / 1000.0;
                (*now >= before).then(|| (topic.clone(), (now - before) as f64 / seconds))
            })
            .collect();
        // Topics that are gone leave the trend; the others get this refresh's rate.
        self.trend.retain(|topic, _| totals.contains_key(topic));
        for (topic, rate) in &rates {
            let points = self.trend.entry(topic.clone()).or_default();
            if points.len() == TREND_POINTS {
                points.pop_front();
            }
            points.push_back(*rate as f32);
        }
        self.samples.push_back((now_ms, totals));
        rates
    }

    /// Each topic's recent rates, oldest first.
    pub fn trend(&self) -> HashMap<String, Vec<f32>> {
        self.trend
            .iter()
            .map(|(topic, points)| (topic.clone(), points.iter().copied().collect()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn totals(pairs: &[(&str, i64)]) -> HashMap<String, i64> {
        pairs.iter().map(|(t, n)| (t.to_string(), *n)).collect()
    }

    #[test]
    fn rates_compare_with_the_oldest_sample_in_the_last_minute() {
        let mut h = RateHistory::default();
        assert!(h.record(0, totals(&[("a", 100)])).is_empty(), "one sample has no rate");
        let r = h.record(15_000, totals(&[("a", 250), ("b", 7)]));
        assert_eq!(r.get("a"), Some(&10.0));
        assert_eq!(r.get("b"), None, "b has no older sample");
        let r = h.record(30_000, totals(&[("a", 400), ("b", 37)]));
        assert_eq!(r.get("a"), Some(&10.0));
        assert_eq!(r.get("b"), Some(&2.0));
        // At 75 s the sample from 0 s has left the window; 15 s is the oldest.
        let r = h.record(75_000, totals(&[("a", 850), ("b", 37)]));
        assert_eq!(r.get("a"), Some(&10.0));
        assert_eq!(r.get("b"), Some(&0.5));
    }

    #[test]
    fn the_trend_keeps_the_latest_rates_of_live_topics() {
        let mut h = RateHistory::default();
        for i in 0..(TREND_POINTS as i64 + 5) {
            h.record(i * 1000, totals(&[("a", i * 2), ("b", 0)]));
        }
        let trend = h.trend();
        assert_eq!(trend["a"].len(), TREND_POINTS);
        assert!(trend["a"].iter().all(|r| *r == 2.0));
        assert!(trend["b"].iter().all(|r| *r == 0.0));
        h.record(100_000, totals(&[("a", 500)]));
        assert!(!h.trend().contains_key("b"), "a deleted topic leaves the trend");
    }

    #[test]
    fn a_topic_that_shrank_has_no_rate() {
        let mut h = RateHistory::default();
        h.record(0, totals(&[("a", 100)]));
        let r = h.record(10_000, totals(&[("a", 5)]));
        assert_eq!(r.get("a"), None);
    }

    #[test]
    fn a_clock_that_went_back_starts_over() {
        let mut h = RateHistory::default();
        h.record(50_000, totals(&[("a", 100)]));
        let r = h.record(40_000, totals(&[("a", 200)]));
        assert!(r.is_empty());
        let r = h.record(50_000, totals(&[("a", 300)]));
        assert_eq!(r.get("a"), Some(&10.0));
    }
}
