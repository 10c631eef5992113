//! Replicas across real network faults: three hosts, each a network
//! namespace joined to this one by a veth pair, made by the test itself,
//! each running a `replica_child` on its own address. One host's link
//! carries no answer, one is cut off (a partition), one is healthy. Every
//! call through the reqwest middleware succeeds within its budget, no
//! attempt goes back to the host that just failed, the two bad hosts are
//! ejected (no more than `max_ejection_percent` allows), and the cut-off
//! host takes calls again once its link is back and it is returned.
//!
//! The bad link is `tc netem delay` where the kernel has netem, and
//! otherwise a token bucket (`tc … tbf`) that passes the handshake and
//! drops every packet with data, as a path-MTU black hole does. Needs
//! root and iproute2: without them the test says so and passes, unless
//! `RESILIENT_REQUIRE_NETNS=1` (set by `.ci/run`). Real time: the faults
//! are real, the timeouts short.

#[path = "support/child.rs"]
mod child;

use std::process::Command;
use std::time::Duration;

use reqwest_middleware::ClientBuilder;
use resilient::endpoint::{OutlierDetection, Replicas};
use resilient::reqwest::ResilientMiddleware;
use resilient::{Backoff, ExecutionReport};

/// Runs `ip`/`tc` with `args`, inside namespace `ns` if given; whether it
/// succeeded, and its error output.
fn run(ns: Option<&str>, program: &str, args: &[&str]) -> Result<(), String> {
    let mut command = match ns {
        Some(ns) => {
            let mut command = Command::new("ip");
            command.args(["netns", "exec", ns, program]);
            command
        }
        None => Command::new(program),
    };
    let output = command
        .args(args)
        .output()
        .map_err(|err| format!("{program}: {err}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{program} {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

/// One host: a namespace, the veth pair to it, and its replica.
struct Host {
    ns: String,
    /// The interface inside the namespace.
    inner: String,
    address: String,
    replica: Option<child::Process>,
}

impl Host {
    /// Host `index` (1, 2, 3): namespace `rsn<pid>-<index>`, addresses
    /// 10.213.<index>.1 here and .2 there.
    fn make(index: u8) -> Result<Host, String> {
        let pid = std::process::id() % 100_000;
        let ns = format!("rsn{pid}-{index}");
        let (outer, inner) = (format!("rso{pid}{index}"), format!("rsi{pid}{index}"));
        let mut host = Host {
            ns: ns.clone(),
            inner: inner.clone(),
            address: format!("10.213.{index}.2"),
            replica: None,
        };
        run(None, "ip", &["netns", "add", &ns])?;
        run(
            None,
            "ip",
            &[
                "link", "add", &outer, "type", "veth", "peer", "name", &inner,
            ],
        )?;
        run(None, "ip", &["link", "set", &inner, "netns", &ns])?;
        let here = format!("10.213.{index}.1/30");
        run(None, "ip", &["addr", "add", &here, "dev", &outer])?;
        run(None, "ip", &["link", "set", &outer, "up"])?;
        let there = format!("{}/30", host.address);
        run(Some(&ns), "ip", &["addr", "add", &there, "dev", &inner])?;
        run(Some(&ns), "ip", &["link", "set", &inner, "up"])?;
        run(Some(&ns), "ip", &["link", "set", "lo", "up"])?;
        let listen = format!("{}:8080", host.address);
        let replica = child::Process::of(
            "ip",
            &[
                "netns",
                "exec",
                &ns,
                env!("CARGO_BIN_EXE_replica_child"),
                &listen,
            ],
        );
        host.replica = Some(replica);
        let ready = host.replica.as_ref().unwrap().line_within(child::STEP);
        if ready.as_deref() != Some("ready") {
            return Err(format!("the replica in {ns} said {ready:?}"));
        }
        Ok(host)
    }

    fn url(&self) -> String {
        format!("http://{}:8080", self.address)
    }

    fn endpoint(&self) -> String {
        format!("{}:8080", self.address)
    }

    /// Makes the host's link carry nothing larger than a handshake:
    /// netem's delay of 2 s where the kernel has netem, or else a token
    /// bucket whose burst (100 bytes) no packet with data fits, which it
    /// drops, as a path-MTU black hole does. Either way a connection is
    /// made, and no answer comes back within an attempt's timeout.
    fn slow_down(&self) -> Result<&'static str, String> {
        let dev = self.inner.as_str();
        let netem = ["qdisc", "add", "dev", dev, "root", "netem", "delay", "2s"];
        if run(Some(&self.ns), "tc", &netem).is_ok() {
            return Ok("netem delay 2s");
        }
        let tbf = [
            "qdisc", "add", "dev", dev, "root", "tbf", "rate", "1mbit", "burst", "100", "latency",
            "1s",
        ];
        run(Some(&self.ns), "tc", &tbf).map(|()| "tbf burst 100 bytes")
    }

    /// Cuts the host off, or brings it back.
    fn link(&self, up: bool) -> Result<(), String> {
        let state = if up { "up" } else { "down" };
        run(Some(&self.ns), "ip", &["link", "set", &self.inner, state])
    }
}

impl Host {
    /// Waits, a few seconds at most, until the host takes connections:
    /// its link's carrier comes back a moment after the link is up.
    fn wait_reachable(&self) {
        let address = self.endpoint().parse().unwrap();
        let deadline = std::time::Instant::now() + child::STEP;
        while std::net::TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "{} stays unreachable",
                self.ns
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        drop(self.replica.take());
        // The veth pair goes with the namespace.
        let _ = run(None, "ip", &["netns", "del", &self.ns]);
    }
}

fn endpoints(report: &ExecutionReport) -> Vec<String> {
    report
        .attempts()
        .iter()
        .map(|attempt| attempt.endpoint().unwrap_or("?").to_owned())
        .collect()
}

/// The three hosts, or why they can't be made here.
fn hosts() -> Result<[Host; 3], String> {
    Ok([Host::make(1)?, Host::make(2)?, Host::make(3)?])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_go_around_a_slow_and_a_cut_off_host_in_namespaces() {
    let [slow, cut, healthy] = match hosts() {
        Ok(hosts) => hosts,
        Err(why) if std::env::var_os("RESILIENT_REQUIRE_NETNS").is_none() => {
            eprintln!("skipped: no network namespaces here ({why})");
            return;
        }
        Err(why) => panic!("network namespaces are required: {why}"),
    };
    let how = slow.slow_down().expect("a qdisc to slow the link with");
    eprintln!("the slow host's link: {how}");
    cut.link(false).unwrap();

    let detection = OutlierDetection::new()
        .consecutive_5xx(1)
        .base_ejection_time(Duration::from_secs(60))
        // Two of three may be out at once.
        .max_ejection_percent(67);
    let client = ClientBuilder::new(reqwest::Client::builder().no_proxy().build().unwrap())
        .with(
            ResilientMiddleware::new()
                .retries(2)
                .backoff(Backoff::none())
                .timeout(Duration::from_millis(400))
                .budget(Duration::from_secs(3))
                .replicas(Replicas::fixed([slow.url(), cut.url(), healthy.url()]))
                .outlier_detection(detection.clone()),
        )
        .build();

    for _ in 0..6 {
        let response = client
            .get("http://service.invalid/users/7")
            .send()
            .await
            .expect("every call succeeds");
        assert_eq!(response.status(), 200);
        let report = response.extensions().get::<ExecutionReport>().unwrap();
        assert!(
            report.elapsed() < Duration::from_secs(3),
            "within its budget"
        );
        let went = endpoints(report);
        for pair in went.windows(2) {
            assert_ne!(
                pair[0], pair[1],
                "never back to the host that just failed: {went:?}"
            );
        }
        assert_eq!(went.last().unwrap(), &healthy.endpoint());
        let body = response.text().await.unwrap();
        assert!(body.starts_with(&format!("replica {}", healthy.endpoint())));
    }
    let mut bad = vec![slow.url(), cut.url()];
    bad.sort();
    assert_eq!(detection.ejected(), bad, "both bad hosts are ejected");

    // Both out: a call goes straight to the healthy host.
    let response = client.get("http://service.invalid/").send().await.unwrap();
    let report = response.extensions().get::<ExecutionReport>().unwrap();
    assert_eq!(endpoints(report), [healthy.endpoint()]);

    // The partition heals and an operator returns the host: it takes
    // calls again, each answered at the first attempt.
    cut.link(true).unwrap();
    cut.wait_reachable();
    detection.restore(&cut.url());
    let mut reached = false;
    for _ in 0..4 {
        let response = client.get("http://service.invalid/").send().await.unwrap();
        assert_eq!(response.status(), 200);
        let report = response.extensions().get::<ExecutionReport>().unwrap();
        reached |= endpoints(report) == [cut.endpoint()];
    }
    assert!(reached, "the returned host answers again");
    assert_eq!(detection.ejected(), [slow.url()]);
}
