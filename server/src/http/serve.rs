//! Serving the router over TCP: HTTP/1 and HTTP/2 connections through hyper, with a limit on
//! how long a client may take to send a request's headers, so that one that trickles them in
//! (or opens connections and sends nothing) cannot hold klens's connections for ever. The
//! record streams are long answers, so there is no limit on a whole request; they end when the
//! client leaves or stops reading (`records::stream`).

use std::future::Future;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;

/// How long a client may take to send a request's headers.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long open connections get to finish when klens stops.
const DRAIN_FOR: Duration = Duration::from_secs(5);

/// Serves `router` on `listener` until `shutdown` completes, then lets open connections finish
/// for a few seconds.
pub async fn serve(
    listener: TcpListener, router: Router, header_read_timeout: Duration,
    shutdown: impl Future<Output = ()>,
) {
    let graceful = GracefulShutdown::new();
    let mut builder = Builder::new(TokioExecutor::new());
    builder.http1().timer(TokioTimer::new()).header_read_timeout(header_read_timeout);
    builder.http2().timer(TokioTimer::new());
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    // Out of file descriptors, for one: wait a moment rather than spin.
                    tracing::warn!(%error, "could not accept a connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        stream.set_nodelay(true).ok();
        let service = TowerToHyperService::new(router.clone());
        let connection = builder.serve_connection(TokioIo::new(stream), service).into_owned();
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%error, "connection ended");
            }
        });
    }
    if tokio::time::timeout(DRAIN_FOR, graceful.shutdown()).await.is_err() {
        tracing::info!("connections still open at shutdown were closed");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// Regression (hardening issue): the server had no header-read timeout, so a client that
    /// sent half a request held its connection for as long as it liked.
    #[tokio::test]
    async fn a_client_that_trickles_its_headers_is_cut_off() {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("address");
        let router = Router::new().route("/", axum::routing::get(|| async { "ok" }));
        let server = tokio::spawn(serve(
            listener,
            router,
            Duration::from_millis(300),
            std::future::pending(),
        ));
        // A whole request is answered.
        let mut client = tokio::net::TcpStream::connect(address).await.expect("connect");
        client
            .write_all(b"GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
            .await
            .expect("write");
        let mut answer = String::new();
        client.read_to_string(&mut answer).await.expect("read");
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        // Half a request is cut off once the timeout passes.
        let mut slow = tokio::net::TcpStream::connect(address).await.expect("connect");
        slow.write_all(b"GET / HTTP/1.1\r\nhost").await.expect("write");
        let started = std::time::Instant::now();
        let mut rest = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(5), slow.read_to_end(&mut rest)).await;
        assert!(read.is_ok(), "the connection was not closed");
        assert!(started.elapsed() >= Duration::from_millis(250));
        server.abort();
    }
}
