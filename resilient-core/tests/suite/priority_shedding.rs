//! A saturated limit that sheds by priority, on tokio's paused clock:
//! calls of mixed priorities arrive one after another, each holding its
//! permit for a second, and the test asserts who got in, who was shed
//! for their priority, and who found the limit full. Through `Operation`
//! and the tower layer's `priority_of`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use resilient_core::limit::{Bulkhead, Limiter, Priorities, Priority};
use resilient_core::{LimitExceeded, Operation, StopReason};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
struct Refused(LimitExceeded);

impl From<LimitExceeded> for Refused {
    fn from(refusal: LimitExceeded) -> Self {
        Refused(refusal)
    }
}

/// How a call of a priority fared.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Fate {
    In,
    Shed,
    Full,
}

fn fate(result: &Result<(), Refused>, priority: Priority) -> Fate {
    match result {
        Ok(()) => Fate::In,
        Err(Refused(refusal)) if refusal.shed_priority() == Some(priority) => Fate::Shed,
        Err(Refused(refusal)) => {
            assert_eq!(refusal.shed_priority(), None);
            Fate::Full
        }
    }
}

use Fate::{Full, In, Shed};
use Priority::{Critical as C, High as H, Low as L, Medium as M, VeryLow as VL};

/// The arrivals, in order, and how each fares at a limit of 10 with the
/// default reserves (10 % for each level above very low): very low fills
/// 6, low 7, medium 8, high 9, critical 10.
const ARRIVALS: [(Priority, Fate); 20] = [
    (VL, In),
    (VL, In),
    (VL, In),
    (VL, In),
    (VL, In),
    (VL, In),
    (VL, Shed),
    (L, In),
    (L, Shed),
    (M, In),
    (M, Shed),
    (H, In),
    (H, Shed),
    (C, In),
    (C, Full),
    (C, Full),
    (L, Full),
    (VL, Full),
    (M, Full),
    (H, Full),
];

#[tokio::test(start_paused = true)]
async fn a_saturated_limit_lets_in_the_higher_priorities_and_sheds_the_lowest_first() {
    static DB: Bulkhead = Bulkhead::new(10)
        .named("db")
        .shed_by_priority(Priorities::new());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut calls = tokio::task::JoinSet::new();
    for (index, (priority, _)) in ARRIVALS.into_iter().enumerate() {
        let seen = Arc::clone(&seen);
        calls.spawn(async move {
            let limiters: [&dyn Limiter; 1] = [&DB];
            let outcome = Operation::new()
                .limit(&limiters)
                .priority(priority)
                .clock(resilient_core::TokioClock)
                .run_async(|_| async {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    Ok::<(), Refused>(())
                })
                .await;
            let stop = outcome.report().stop_reason();
            let fared = fate(&outcome.into_result(), priority);
            seen.lock().unwrap().push((index, fared, stop));
        });
        // Each call takes its permit (or not) before the next arrives.
        tokio::task::yield_now().await;
    }
    while calls.join_next().await.is_some() {}
    let mut seen = seen.lock().unwrap().clone();
    seen.sort_by_key(|(index, ..)| *index);
    let fates: Vec<(Priority, Fate)> = seen
        .iter()
        .map(|(index, fared, _)| (ARRIVALS[*index].0, *fared))
        .collect();
    assert_eq!(fates, ARRIVALS);
    for (_, fared, stop) in &seen {
        let expected = if *fared == In {
            StopReason::Succeeded
        } else {
            StopReason::LimitExceeded
        };
        assert_eq!(*stop, expected);
    }
    assert_eq!(DB.available(), 10, "every permit came back");
}

/// The tower layer takes each request's priority from `priority_of`: here
/// the request is its priority. One permit of two is kept for critical
/// requests.
#[cfg(feature = "tower")]
#[tokio::test(start_paused = true)]
async fn the_layer_reads_each_requests_priority() {
    use tower::{BoxError, Layer, Service, ServiceExt, service_fn};

    static API: Bulkhead = Bulkhead::new(2)
        .named("api")
        .shed_by_priority(Priorities::none().reserve(C, 0.5));
    let layer = resilient_core::tower::ResilientLayer::new()
        .limit(&API)
        .priority_of(|priority: &Priority| Some(*priority));
    let backend = service_fn(|priority: Priority| async move {
        tokio::time::sleep(Duration::from_secs(1)).await;
        Ok::<_, BoxError>(priority)
    });
    let service = layer.layer(backend);
    let mut calls = tokio::task::JoinSet::new();
    for (index, priority) in [L, H, C, C].into_iter().enumerate() {
        let mut service = service.clone();
        calls.spawn(async move {
            let answer = service.ready().await.unwrap().call(priority).await;
            let refusal = answer.map_err(|e| *e.downcast::<LimitExceeded>().unwrap());
            (index, refusal.map_err(|r| r.shed_priority()))
        });
        tokio::task::yield_now().await;
    }
    let mut seen = Vec::new();
    while let Some(call) = calls.join_next().await {
        seen.push(call.unwrap());
    }
    seen.sort_by_key(|(index, _)| *index);
    assert_eq!(
        seen,
        [(0, Ok(L)), (1, Err(Some(H))), (2, Ok(C)), (3, Err(None))]
    );
}
