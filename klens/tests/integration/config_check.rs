use crate::support::*;

#[test]
fn check_config_accepts_a_good_file_without_connecting() {
    let path = write_temp(
        "config.yaml",
        "clusters:\n  - name: far\n    bootstrap_servers: 192.0.2.1:9092\n",
    );
    let out = check_config(&path);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("valid (1 cluster)"));
}

#[test]
fn check_config_names_the_key_and_position_of_a_mistake() {
    let path = write_temp(
        "config.yaml",
        "clusters:\n  - name: a\n    bootstrap_servers: x:1\n    writeable: true\n",
    );
    let out = check_config(&path);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("config.yaml:4:5: clusters[0].writeable"), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
}

/// With `log.format: json`, every line klens logs is one JSON object with the fields of the
/// text lines (time, level, target, message).
#[test]
fn json_logs_are_one_object_a_line() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let path = write_temp(
        "klens.yaml",
        "listen: 127.0.0.1:18977\nclusters:\n  - name: nowhere\n    bootstrap_servers: 127.0.0.1:1\nlog:\n  format: json\n",
    );
    let mut child = klens()
        .args(["--config"])
        .arg(&path)
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("klens starts");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::time::Instant::now() < deadline {
        match rx.recv_timeout(std::time::Duration::from_millis(200)) {
            Ok(line) => {
                let done = line.contains("listens on");
                seen.push(line);
                if done {
                    break;
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(_) => break,
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(seen.iter().any(|l| l.contains("listens on")), "{seen:?}");
    for line in &seen {
        let value: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        for field in ["timestamp", "level", "target"] {
            assert!(value.get(field).is_some(), "{field} missing: {line}");
        }
        assert!(value["fields"]["message"].is_string(), "{line}");
    }
}
