//! How far a replication has come on one partition, from the source's offsets, the newest
//! offset sync and the copy's end offset.

use super::records::OffsetSync;

/// The next source offset not yet on the target, and the records between it and the source's
/// end. MirrorMaker syncs an offset now and then, not every record: the records the copy holds
/// past the newest sync are the source's records past the synced one, one for one (what
/// MirrorMaker's own translation assumes). A source partition with no records has nothing to
/// copy; otherwise, without a sync or the copy's end, nothing is known.
pub fn progress(
    source: Option<(i64, i64)>, sync: Option<&OffsetSync>, target_end: Option<i64>,
) -> (Option<i64>, Option<u64>) {
    if let Some((low, end)) = source {
        if end <= low && sync.is_none() {
            return (Some(end), Some(0));
        }
    }
    let (Some(sync), Some(target_end)) = (sync, target_end) else {
        return (None, None);
    };
    let past = target_end.saturating_sub(sync.downstream).max(0);
    let mut replicated_to = sync.upstream.saturating_add(past);
    if let Some((_, end)) = source {
        replicated_to = replicated_to.min(end);
    }
    let lag = source.map(|(_, end)| u64::try_from(end.saturating_sub(replicated_to)).unwrap_or(0));
    (Some(replicated_to), lag)
}
