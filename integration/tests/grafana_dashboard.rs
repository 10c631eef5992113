//! `integration/grafana/resilient.json`, the Grafana dashboard of the
//! Prometheus series: importable as is (a Prometheus data source asked for
//! on import, unique panel ids), and every series its queries name is one
//! `resilient` records (`resilient::metrics::SERIES`), so a renamed series
//! can't leave a panel empty.

use resilient::metrics::{SERIES, SeriesKind};
use serde_json::Value;

fn dashboard() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/grafana/resilient.json");
    let text = std::fs::read_to_string(path).expect("the dashboard file");
    serde_json::from_str(&text).expect("the dashboard is JSON")
}

/// Every PromQL expression in the dashboard: the panels' targets and the
/// template variables' queries.
fn queries(dashboard: &Value) -> Vec<String> {
    let mut found = Vec::new();
    for panel in dashboard["panels"].as_array().unwrap() {
        for target in panel["targets"].as_array().into_iter().flatten() {
            found.push(target["expr"].as_str().expect("a query").to_owned());
        }
    }
    for variable in dashboard["templating"]["list"].as_array().unwrap() {
        found.push(variable["query"]["query"].as_str().unwrap().to_owned());
    }
    found
}

/// The metric names a query reads: the words starting with `resilient_`.
fn names_in(query: &str) -> Vec<&str> {
    query
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|word| word.starts_with("resilient_"))
        .collect()
}

/// The series `name` reads: itself, or the histogram a Prometheus
/// exporter's `_bucket`, `_sum` or `_count` series belongs to.
fn series_of(name: &str) -> Option<&'static resilient::metrics::Series> {
    SERIES.iter().find(|series| {
        series.name == name
            || series.kind == SeriesKind::Histogram
                && ["_bucket", "_sum", "_count"]
                    .iter()
                    .any(|suffix| name.strip_suffix(suffix) == Some(series.name))
    })
}

#[test]
fn every_series_the_dashboard_queries_is_one_resilient_records() {
    let dashboard = dashboard();
    let queries = queries(&dashboard);
    assert!(queries.len() >= 10, "the dashboard lost its panels");
    for query in &queries {
        let names = names_in(query);
        assert!(!names.is_empty(), "`{query}` reads no series of resilient");
        for name in names {
            assert!(
                series_of(name).is_some(),
                "`{query}` reads `{name}`, which resilient does not record"
            );
        }
    }
    // The test can fail: a name resilient does not record is caught.
    assert!(series_of("resilient_attempts").is_none());
    assert!(series_of("resilient_retries_total_count").is_none());
}

#[test]
fn the_dashboard_imports_as_is() {
    let dashboard = dashboard();
    let inputs = dashboard["__inputs"].as_array().expect("import inputs");
    assert!(
        inputs
            .iter()
            .any(|input| input["name"] == "DS_PROMETHEUS" && input["pluginId"] == "prometheus")
    );
    assert!(dashboard["uid"].as_str().is_some_and(|uid| !uid.is_empty()));
    assert!(
        dashboard["id"].is_null(),
        "an exported id would clash on import"
    );
    let mut ids = Vec::new();
    for panel in dashboard["panels"].as_array().unwrap() {
        ids.push(panel["id"].as_u64().expect("a panel id"));
        if panel["type"] != "row" {
            assert_eq!(
                panel["datasource"]["uid"], "${DS_PROMETHEUS}",
                "{}",
                panel["title"]
            );
        }
    }
    let count = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), count, "panel ids repeat");
}
