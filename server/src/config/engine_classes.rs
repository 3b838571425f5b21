//! Connector classes that are engines of their own, never loose connectors: FileStream (it
//! reads and writes the Connect worker's own files) and MirrorMaker 2 (a replication, with
//! checks of its own). Connect finds a plugin by its full class name, its simple name, or its
//! simple name without `Connector`; every one of those spellings, in any case, is known here.

/// Why `class` is never created as a loose connector, in words for a refusal; `None` for any
/// other class.
pub fn never_loose(class: &str) -> Option<&'static str> {
    let class = class.trim().to_ascii_lowercase();
    let simple = class.rsplit('.').next().unwrap_or_default();
    let pruned = simple.strip_suffix("connector").unwrap_or(simple);
    if class.starts_with("org.apache.kafka.connect.file.")
        || matches!(pruned, "filestreamsource" | "filestreamsink")
    {
        return Some(
            "a FileStream connector, which reads and writes the Connect worker's own files",
        );
    }
    if is_mirror(&class) {
        return Some("a MirrorMaker 2 connector, which runs only as part of a replication");
    }
    None
}

/// Whether `class` names one of MirrorMaker 2's connectors, in any spelling Connect accepts.
pub fn is_mirror(class: &str) -> bool {
    let class = class.trim().to_ascii_lowercase();
    let simple = class.rsplit('.').next().unwrap_or_default();
    let pruned = simple.strip_suffix("connector").unwrap_or(simple);
    class.starts_with("org.apache.kafka.connect.mirror.")
        || matches!(pruned, "mirrorsource" | "mirrorcheckpoint" | "mirrorheartbeat")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_of_an_engine_class_is_known() {
        let file = [
            "org.apache.kafka.connect.file.FileStreamSourceConnector",
            "org.apache.kafka.connect.file.FileStreamSinkConnector",
            "FileStreamSource",
            "FileStreamSinkConnector",
            " filestreamsource ",
            "FILESTREAMSINK",
            "com.example.FileStreamSourceConnector",
        ];
        for class in file {
            assert!(never_loose(class).is_some_and(|w| w.contains("FileStream")), "{class}");
            assert!(!is_mirror(class), "{class}");
        }
        let mirror = [
            "org.apache.kafka.connect.mirror.MirrorSourceConnector",
            "MirrorSourceConnector",
            "MirrorSource",
            "mirrorcheckpoint",
            "MirrorHeartbeatConnector",
            "org.apache.kafka.connect.mirror.SomethingNew",
        ];
        for class in mirror {
            assert!(is_mirror(class), "{class}");
            assert!(never_loose(class).is_some_and(|w| w.contains("MirrorMaker")), "{class}");
        }
        for class in [
            "org.apache.kafka.connect.tools.VerifiableSinkConnector",
            "io.confluent.connect.jdbc.JdbcSinkConnector",
            "JdbcSink",
            "FileStream",
            "Mirror",
        ] {
            assert_eq!(never_loose(class), None, "{class}");
        }
    }
}
