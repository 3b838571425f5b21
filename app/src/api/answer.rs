//! How every server function answers: JSON, the same bytes and `Content-Type` as Leptos's own
//! `Json` output, so scripts see no difference. The browser reads an answer as text with
//! `serde_json::from_str`, the reader Leptos uses for the values a resource carries from the
//! server-rendered page into the browser. With Leptos's `Json`, which reads bytes, the browser
//! bundle held two JSON decoders for every answer type that is also a resource's value.

use leptos::server_fn::codec::Post;
use leptos::server_fn::{Bytes, ContentType, Decodes, Encodes, Format, FormatType};
use serde::{de::DeserializeOwned, Serialize};

/// The JSON encoding of answers (see the module's documentation).
pub struct JsonText;

impl ContentType for JsonText {
    const CONTENT_TYPE: &'static str = "application/json";
}

impl FormatType for JsonText {
    const FORMAT_TYPE: Format = Format::Text;
}

impl<T: Serialize> Encodes<T> for JsonText {
    type Error = serde_json::Error;

    fn encode(output: &T) -> Result<Bytes, Self::Error> {
        serde_json::to_vec(output).map(Bytes::from)
    }
}

impl<T: DeserializeOwned> Decodes<T> for JsonText {
    type Error = serde_json::Error;

    fn decode(bytes: Bytes) -> Result<T, Self::Error> {
        let text = std::str::from_utf8(&bytes).map_err(serde::de::Error::custom)?;
        serde_json::from_str(text)
    }
}

/// The output every server function names: `#[server(..., output = Answer)]`.
pub type Answer = Post<JsonText>;

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Shape {
        name: String,
        count: u64,
    }

    #[test]
    fn an_answer_is_the_json_leptos_would_send_and_reads_back() {
        let shape = Shape { name: "orders\u{e9}".into(), count: 3 };
        let bytes = <JsonText as Encodes<Shape>>::encode(&shape).expect("encodes");
        assert_eq!(&bytes[..], serde_json::to_vec(&shape).expect("json").as_slice());
        let back: Shape = <JsonText as Decodes<Shape>>::decode(bytes).expect("decodes");
        assert_eq!(back, shape);
    }

    #[test]
    fn an_answer_that_is_not_utf8_is_an_error_not_a_panic() {
        let err = <JsonText as Decodes<Shape>>::decode(Bytes::from_static(b"{\"name\":\"\xff\"}"));
        assert!(err.is_err());
    }
}
