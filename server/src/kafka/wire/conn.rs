//! One connection to one broker: TCP, then TLS and SASL as the cluster's config says, then
//! framed requests and responses, one at a time.

use std::collections::HashMap;
use std::sync::Arc;

use bytes::{BufMut, Bytes, BytesMut};
use kafka_protocol::messages::{
    ApiVersionsRequest, RequestHeader, ResponseHeader, SaslAuthenticateRequest,
    SaslHandshakeRequest,
};
use kafka_protocol::protocol::{Decodable, Encodable, HeaderVersion, Request, StrBytes};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::rustls::pki_types::ServerName;
use tokio_rustls::rustls::ClientConfig as TlsClientConfig;
use tokio_rustls::TlsConnector;

use super::scram::{Hash, Scram};
use super::{describe_code, WireError, WireResult};
use crate::config::{SaslConfig, SaslMechanism};

/// The largest response klens reads; anything bigger is a broken or hostile peer.
const MAX_RESPONSE: usize = 256 * 1024 * 1024;

trait Stream: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Stream for T {}

/// How to reach the cluster's brokers.
pub struct Security {
    pub sasl: Option<SaslConfig>,
    pub tls: Option<Arc<TlsClientConfig>>,
}

pub struct Connection {
    stream: Box<dyn Stream>,
    next_id: i32,
    /// API key → the versions this broker accepts.
    versions: HashMap<i16, (i16, i16)>,
}

impl Connection {
    pub async fn open(host: &str, port: u16, security: &Security) -> WireResult<Connection> {
        let tcp = TcpStream::connect((host, port))
            .await
            .map_err(|e| WireError::Connection(format!("cannot connect to {host}:{port}: {e}")))?;
        tcp.set_nodelay(true).ok();
        let stream: Box<dyn Stream> = match &security.tls {
            None => Box::new(tcp),
            Some(tls) => {
                let name = ServerName::try_from(host.to_string()).map_err(|_| {
                    WireError::Connection(format!("{host} is not a valid TLS server name"))
                })?;
                let tls =
                    TlsConnector::from(Arc::clone(tls)).connect(name, tcp).await.map_err(|e| {
                        WireError::Connection(format!("TLS with {host}:{port} failed: {e}"))
                    })?;
                Box::new(tls)
            }
        };
        let mut conn = Connection { stream, next_id: 1, versions: HashMap::new() };
        conn.negotiate_versions().await?;
        if let Some(sasl) = &security.sasl {
            conn.authenticate(sasl).await?;
        }
        Ok(conn)
    }

    async fn negotiate_versions(&mut self) -> WireResult<()> {
        let request = ApiVersionsRequest::default()
            .with_client_software_name(StrBytes::from_static_str("klens"))
            .with_client_software_version(StrBytes::from_static_str(env!("CARGO_PKG_VERSION")));
        let response = self.exchange(&request, 3).await?;
        if response.error_code != 0 {
            return Err(WireError::Kafka {
                context: Some("the broker refused ApiVersions"),
                code: response.error_code,
            });
        }
        self.versions =
            response.api_keys.iter().map(|k| (k.api_key, (k.min_version, k.max_version))).collect();
        Ok(())
    }

    async fn authenticate(&mut self, sasl: &SaslConfig) -> WireResult<()> {
        let mechanism = sasl.mechanism.librdkafka_name();
        let handshake = SaslHandshakeRequest::default()
            .with_mechanism(StrBytes::from_string(mechanism.to_string()));
        let answer = self.exchange(&handshake, 1).await?;
        if answer.error_code != 0 {
            return Err(WireError::Authentication(format!(
                "the broker does not offer SASL {mechanism}: {}",
                describe_code(answer.error_code)
            )));
        }
        let hash = match sasl.mechanism {
            SaslMechanism::Plain => {
                let token = format!("\0{}\0{}", sasl.username, sasl.password.expose());
                self.sasl_step(Bytes::from(token)).await?;
                return Ok(());
            }
            SaslMechanism::ScramSha256 => Hash::Sha256,
            SaslMechanism::ScramSha512 => Hash::Sha512,
        };
        let mut scram = Scram::new(hash, &sasl.username, sasl.password.expose());
        let server_first = self.sasl_step(Bytes::from(scram.client_first())).await?;
        let server_first = String::from_utf8_lossy(&server_first).into_owned();
        // The key derivation takes milliseconds of CPU: not on an async worker.
        let (scram, client_final) = tokio::task::spawn_blocking(move || {
            let answer = scram.client_final(&server_first);
            (scram, answer)
        })
        .await
        .map_err(|e| WireError::Internal(format!("SCRAM failed: {e}")))?;
        let client_final = client_final?;
        let server_final = self.sasl_step(Bytes::from(client_final)).await?;
        scram.verify_server_final(&String::from_utf8_lossy(&server_final))
    }

    async fn sasl_step(&mut self, token: Bytes) -> WireResult<Bytes> {
        let request = SaslAuthenticateRequest::default().with_auth_bytes(token);
        let answer = self.exchange(&request, 2).await?;
        if answer.error_code != 0 {
            // Kafka's message says what went wrong ("invalid credentials") without secrets.
            let detail = answer
                .error_message
                .map(|m| m.to_string())
                .unwrap_or_else(|| describe_code(answer.error_code));
            return Err(WireError::Authentication(format!("SASL authentication failed: {detail}")));
        }
        Ok(answer.auth_bytes)
    }

    /// The highest version of `R` that both klens and this broker speak, if it is at least
    /// `min`.
    pub fn version<R: Request>(&self, min: i16) -> WireResult<i16> {
        let ours = R::VERSIONS;
        let broker = self.versions.get(&R::KEY).copied();
        let unsupported =
            WireError::Unsupported { api: R::KEY, broker, klens: (min.max(ours.min), ours.max) };
        let Some((broker_min, broker_max)) = broker else {
            return Err(unsupported);
        };
        let top = ours.max.min(broker_max);
        if top < min.max(broker_min).max(ours.min) {
            return Err(unsupported);
        }
        Ok(top)
    }

    /// Sends `request` at the highest common version of at least `min`.
    pub async fn call<R: Request>(&mut self, request: &R, min: i16) -> WireResult<R::Response> {
        let version = self.version::<R>(min)?;
        self.exchange(request, version).await
    }

    async fn exchange<R: Request>(&mut self, request: &R, version: i16) -> WireResult<R::Response> {
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        let header = RequestHeader::default()
            .with_request_api_key(R::KEY)
            .with_request_api_version(version)
            .with_correlation_id(id)
            .with_client_id(Some(StrBytes::from_static_str("klens")));
        let mut frame = BytesMut::new();
        frame.put_i32(0);
        header
            .encode(&mut frame, R::header_version(version))
            .and_then(|_| request.encode(&mut frame, version))
            .map_err(|e| {
                WireError::Internal(format!("cannot encode API {} v{version}: {e}", R::KEY))
            })?;
        let length = i32::try_from(frame.len() - 4)
            .map_err(|_| WireError::Internal("request too large".to_string()))?;
        frame[..4].copy_from_slice(&length.to_be_bytes());
        self.stream
            .write_all(&frame)
            .await
            .map_err(|e| WireError::Connection(format!("write failed: {e}")))?;
        self.stream
            .flush()
            .await
            .map_err(|e| WireError::Connection(format!("write failed: {e}")))?;

        let length = self.stream.read_i32().await.map_err(closed)?;
        let length =
            usize::try_from(length).ok().filter(|l| *l <= MAX_RESPONSE).ok_or_else(|| {
                WireError::Protocol(format!("the broker sent a frame of {length} bytes"))
            })?;
        let mut body = vec![0u8; length];
        self.stream.read_exact(&mut body).await.map_err(closed)?;
        decode_answer::<R>(Bytes::from(body), id, version)
    }
}

/// A read that found the connection gone.
fn closed(e: std::io::Error) -> WireError {
    WireError::Connection(format!("the broker closed the connection: {e}"))
}

/// Decodes one answer frame (after its length) to request `id` of kind `R` at `version`.
///
/// The bytes come from a broker, or from whoever sits on a plaintext link. Every array count
/// in them is held against the bytes that remain before anything is reserved for it: the
/// `kafka-protocol` crate klens builds with is patched for that (see `vendor/README.md`).
pub(super) fn decode_answer<R: Request>(
    mut body: Bytes, id: i32, version: i16,
) -> WireResult<R::Response> {
    let header =
        ResponseHeader::decode(&mut body, <R::Response as HeaderVersion>::header_version(version))
            .map_err(|e| WireError::Protocol(format!("cannot decode a response header: {e}")))?;
    if header.correlation_id != id {
        return Err(WireError::Protocol(format!(
            "the broker answered request {} to request {id}",
            header.correlation_id
        )));
    }
    R::Response::decode(&mut body, version)
        .map_err(|e| WireError::Protocol(format!("cannot decode API {} v{version}: {e}", R::KEY)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kafka_protocol::messages::{
        ConsumerGroupDescribeRequest, DescribeClusterRequest, DescribeGroupsRequest,
        DescribeLogDirsRequest, DescribeProducersRequest, DescribeQuorumRequest,
        DescribeTransactionsRequest, ListGroupsRequest, ListTransactionsRequest, MetadataRequest,
        OffsetDeleteRequest, OffsetFetchRequest,
    };
    use kafka_protocol::protocol::Message;

    /// An answer frame to request 7: the response header for `version`, then `body`.
    fn frame<R: Request>(version: i16, body: &[u8]) -> Bytes {
        let mut frame = BytesMut::new();
        ResponseHeader::default()
            .with_correlation_id(7)
            .encode(&mut frame, <R::Response as HeaderVersion>::header_version(version))
            .expect("a header encodes");
        frame.extend_from_slice(body);
        frame.freeze()
    }

    /// Regression (hardening issue): a broker answer whose array count claims billions of
    /// elements made the protocol crate reserve hundreds of gigabytes and abort klens, before
    /// a single element was read. The count is now refused against the bytes that remain.
    #[test]
    fn a_hostile_count_in_a_broker_answer_reserves_nothing() {
        // Metadata v12 (flexible): throttle time, then a compact array of brokers whose
        // count is 2^32 − 2.
        let body = [0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f];
        let e = decode_answer::<MetadataRequest>(frame::<MetadataRequest>(12, &body), 7, 12)
            .expect_err("refused");
        assert!(e.to_string().contains("exceeds"), "{e}");
        // ListGroups v2 (not flexible): throttle time, error code, then an array of groups
        // whose count is 2^31 − 1.
        let body = [0, 0, 0, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff];
        let e = decode_answer::<ListGroupsRequest>(frame::<ListGroupsRequest>(2, &body), 7, 2)
            .expect_err("refused");
        assert!(e.to_string().contains("exceeds"), "{e}");
        // The same answer with the one group it claims decodes.
        let body = [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, b'g', 0, 0];
        let answer = decode_answer::<ListGroupsRequest>(frame::<ListGroupsRequest>(2, &body), 7, 2)
            .expect("a valid answer");
        assert_eq!(answer.groups.len(), 1);
    }

    /// Arbitrary bytes as the answer to every request klens sends, at every version the crate
    /// knows: no panic, and no count is believed beyond the bytes of the frame (an abort would
    /// end the test run).
    #[test]
    fn fuzz_broker_answers() {
        fn kind<R: Request>(inputs: &mut crate::fuzz::Inputs, cases: usize) {
            let versions = <R::Response as Message>::VERSIONS;
            let span = (versions.max - versions.min + 1) as usize;
            for case in 0..cases {
                let version = versions.min + (case % span) as i16;
                let body = inputs.bytes();
                let _ = decode_answer::<R>(frame::<R>(version, &body), 7, version);
            }
        }
        let mut inputs = crate::fuzz::Inputs::new(0x5eed_0005, 256);
        let cases = crate::fuzz::cases(20_000) / 8;
        kind::<ApiVersionsRequest>(&mut inputs, cases);
        kind::<MetadataRequest>(&mut inputs, cases);
        kind::<ListGroupsRequest>(&mut inputs, cases);
        kind::<DescribeGroupsRequest>(&mut inputs, cases);
        kind::<ConsumerGroupDescribeRequest>(&mut inputs, cases);
        kind::<OffsetFetchRequest>(&mut inputs, cases);
        kind::<DescribeLogDirsRequest>(&mut inputs, cases);
        kind::<DescribeClusterRequest>(&mut inputs, cases);
        kind::<DescribeQuorumRequest>(&mut inputs, cases);
        kind::<OffsetDeleteRequest>(&mut inputs, cases);
        kind::<SaslHandshakeRequest>(&mut inputs, cases);
        kind::<SaslAuthenticateRequest>(&mut inputs, cases);
        kind::<DescribeProducersRequest>(&mut inputs, cases);
        kind::<ListTransactionsRequest>(&mut inputs, cases);
        kind::<DescribeTransactionsRequest>(&mut inputs, cases);
    }
}
