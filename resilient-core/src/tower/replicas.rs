//! Replicas in the tower layer ([`ResilientLayer::replicas`](super::ResilientLayer::replicas)):
//! each attempt's copy of the request pointed at the replica its attempt
//! chose ([`crate::endpoint::Replicas`]), by a function of the layer's
//! request type. The setters are in `layer_replicas.rs`.

use std::any::{Any, TypeId};
use std::fmt;
use std::sync::Arc;

use crate::endpoint::Routing;

/// Points a request, as `dyn Any`, at a replica: the user's typed
/// function behind a downcast.
pub(super) type RedirectFn = Arc<dyn Fn(&mut dyn Any, &str) + Send + Sync>;

/// A layer's replicas, and how its requests are pointed at one.
#[derive(Clone)]
pub(crate) struct LayerReplicas {
    pub(crate) routing: Routing,
    pub(super) redirect: RedirectFn,
    /// The request type `redirect` takes, and its name for the error;
    /// `None` before `replicas` gave one.
    pub(super) takes: Option<(TypeId, &'static str)>,
}

impl fmt::Debug for LayerReplicas {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LayerReplicas")
            .field("routing", &self.routing)
            .field("takes", &self.takes.map(|(_, name)| name))
            .finish()
    }
}

impl LayerReplicas {
    /// Points `request` at `replica`.
    pub(crate) fn redirect<Req: 'static>(&self, request: &mut Req, replica: &str) {
        (self.redirect)(request, replica);
    }

    /// `Ok` if the layer's redirect takes a `Req`; the error of a call
    /// otherwise, which is sent nowhere.
    pub(crate) fn accepts<Req: 'static>(&self) -> Result<(), OtherRequestType> {
        match self.takes {
            Some((takes, name)) if takes != TypeId::of::<Req>() => Err(OtherRequestType {
                takes: name,
                given: std::any::type_name::<Req>(),
            }),
            _ => Ok(()),
        }
    }
}

/// A layer's replicas were given a function of another request type than
/// the service's.
#[derive(Debug)]
pub struct OtherRequestType {
    takes: &'static str,
    given: &'static str,
}

impl fmt::Display for OtherRequestType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the layer's replicas point a `{}` at a replica, but the service takes `{}`: give `replicas` a function of the service's request type",
            self.takes, self.given
        )
    }
}

impl std::error::Error for OtherRequestType {}
