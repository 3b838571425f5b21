use crate::support::*;

#[test]
fn check_config_accepts_a_good_file_without_connecting() {
    let path = write_temp(
        "config.yaml",
        "clusters:\n  - name: far\n    bootstrap_servers: 192.0.2.1:9092\n",
    );
    let out = check_config(&path);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
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
    assert!(
        stderr.contains("config.yaml:4:5: clusters[0].writeable"),
        "{stderr}"
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
}
