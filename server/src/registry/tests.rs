use super::*;

fn registry() -> Registry {
    Registry::new(&RegistryConfig {
        url: "http://127.0.0.1:1/apis/ccompat/v7".into(),
        username: None,
        password: None,
    })
    .expect("a registry")
}

/// What the URL library does with a segment that is path syntax: `..` is dropped, and a
/// tab inside dots is removed before the dots climb, so `config/<name>` would be the
/// global level's `config`. Such a segment is refused; others stay one segment.
#[test]
fn a_name_never_becomes_another_path() {
    let registry = registry();
    for name in [".", "..", ".\t.", "\t", ".\n", "a\rb"] {
        assert!(registry.rest.url(&["config", name]).is_err(), "{name:?}");
    }
    for (name, path) in [
        ("a b", "/apis/ccompat/v7/config/a%20b"),
        ("a/b", "/apis/ccompat/v7/config/a%2Fb"),
        ("a\\b", "/apis/ccompat/v7/config/a%5Cb"),
        ("%2e%2e", "/apis/ccompat/v7/config/%252e%252e"),
        ("x?y#z", "/apis/ccompat/v7/config/x%3Fy%23z"),
    ] {
        let url = registry.rest.url(&["config", name]).expect("a URL");
        assert_eq!(url.path(), path, "{name:?}");
    }
}

#[test]
fn names_that_are_path_syntax_are_told_apart() {
    for bad in [
        ".", "..", "a/b", "/", "a\\b", "%2e", "%2E%2e", "a%2Fb", "a%2fb", "a%5Cb", "x%00", ".\t.",
        "a\nb", "\u{7f}", "\u{85}",
    ] {
        assert!(segment_problem(bad).is_some(), "{bad:?}");
    }
    for good in [
        "payments-value",
        "com.example.Payment",
        "...",
        ".hidden",
        "a..b",
        "100%",
        "50% off",
        "%zz",
        "naïve-value",
    ] {
        assert_eq!(segment_problem(good), None, "{good:?}");
    }
}
