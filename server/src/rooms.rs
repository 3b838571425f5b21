//! The rooms of the server (the modules under `src/`) import each other without a circle: the
//! test below reads every non-test source file, finds the rooms each one names through
//! `crate::<room>`, and fails on the first circle it meets, naming it. Comments and `#[cfg(test)]`
//! modules do not count.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The rooms each room uses, from the source under `src`.
fn imports(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut rooms: BTreeMap<String, Vec<std::path::PathBuf>> = BTreeMap::new();
    for entry in std::fs::read_dir(src).expect("src") {
        let path = entry.expect("entry").path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()).map(str::to_string) else {
            continue;
        };
        if matches!(stem.as_str(), "lib" | "main" | "rooms" | "fuzz") {
            continue;
        }
        let files = rooms.entry(stem).or_default();
        if path.is_dir() {
            files.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    let names: BTreeSet<String> = rooms.keys().cloned().collect();
    rooms
        .into_iter()
        .map(|(room, files)| {
            let mut used = BTreeSet::new();
            for file in files {
                let text = std::fs::read_to_string(&file).expect("source");
                for line in code(&text).lines() {
                    for (at, _) in line.match_indices("crate::") {
                        let name: String = line[at + "crate::".len()..]
                            .chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect();
                        if name != room && names.contains(&name) {
                            used.insert(name);
                        }
                    }
                }
            }
            (room, used)
        })
        .collect()
}

/// The `.rs` files under `dir` that are not tests.
fn sources(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            if !path.ends_with("tests") {
                out.extend(sources(&path));
            }
        } else if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("tests.rs") {
            out.push(path);
        }
    }
    out
}

/// A file's code without its comments and without what follows its first `#[cfg(test)]`
/// (test modules come last in this code base).
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or_default();
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A circle through `from`, if there is one: the rooms in order, ending where they began.
fn circle(imports: &BTreeMap<String, BTreeSet<String>>, from: &str) -> Option<Vec<String>> {
    fn walk(
        imports: &BTreeMap<String, BTreeSet<String>>, path: &mut Vec<String>,
        seen: &mut BTreeSet<String>, goal: &str,
    ) -> bool {
        let Some(last) = path.last().cloned() else {
            return false;
        };
        for next in imports.get(&last).into_iter().flatten() {
            if next == goal {
                path.push(next.clone());
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if walk(imports, path, seen, goal) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![from.to_string()];
    walk(imports, &mut path, &mut BTreeSet::new(), from).then_some(path)
}

#[test]
fn no_room_imports_itself_through_others() {
    let imports = imports(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(imports.len() >= 10, "found {} rooms", imports.len());
    for room in imports.keys() {
        if let Some(circle) = circle(&imports, room) {
            panic!("the rooms import each other in a circle: {}", circle.join(" -> "));
        }
    }
}

#[test]
fn a_circle_is_found_and_named() {
    let imports: BTreeMap<String, BTreeSet<String>> =
        [("a", vec!["b"]), ("b", vec!["c"]), ("c", vec!["a"]), ("d", vec!["a"])]
            .into_iter()
            .map(|(room, uses)| (room.into(), uses.into_iter().map(String::from).collect()))
            .collect();
    assert_eq!(circle(&imports, "a"), Some(vec!["a".into(), "b".into(), "c".into(), "a".into()]));
    assert_eq!(circle(&imports, "d"), None);
}
