//! Who may do what: sign-in, roles, bindings, the MCP ceiling and resource scopes.

use super::*;

pub(super) fn auth(value: &Value<'_>, clusters: &[&str]) -> Result<AuthConfig, ConfigError> {
    let map = value.map()?;
    map.only(AUTH_KEYS)?;
    let oidc = oidc(&map.required(
        "oidc",
        "give issuer, client_id, client_secret and redirect_uri, or remove auth for no sign-in",
    )?)?;
    let claim = match map.get("claim") {
        Some(value) => value.non_empty_string()?,
        None => "groups".to_string(),
    };
    let roles = match map.get("roles") {
        Some(value) => roles(&value)?,
        None => BTreeMap::new(),
    };
    let bindings = match map.get("bindings") {
        Some(value) => bindings(&value, &roles, clusters)?,
        None => Vec::new(),
    };
    Ok(AuthConfig { oidc, claim, roles, bindings })
}

pub(super) fn oidc(value: &Value<'_>) -> Result<OidcConfig, ConfigError> {
    let map = value.map()?;
    map.only(OIDC_KEYS)?;
    let issuer_value = map.required("issuer", "give the provider's issuer URL")?;
    let issuer = issuer_value.text()?.value;
    https_unless_loopback(&issuer_value, &issuer, "issuer URL")?;
    let client_id = map
        .required("client_id", "give the client ID registered with the provider")?
        .non_empty_string()?;
    let client_secret =
        map.required("client_secret", "give it, for example as ${KLENS_OIDC_SECRET}")?.secret()?;
    let redirect_value = map.required(
        "redirect_uri",
        "give klens's callback URL, such as https://klens.example.com/auth/callback",
    )?;
    let redirect_uri = redirect_value.text()?.value;
    let redirect = https_unless_loopback(&redirect_value, &redirect_uri, "redirect URI")?;

    let scopes = match map.get("scopes") {
        Some(value) => {
            let scopes = value.string_list()?;
            if !scopes.iter().any(|scope| scope == "openid") {
                return Err(value.error(
                    "must include openid, which OpenID Connect requires; such as \
                     [openid, profile, email]",
                ));
            }
            scopes
        }
        None => OidcConfig::DEFAULT_SCOPES.iter().map(|scope| scope.to_string()).collect(),
    };
    let max_age = match map.get("max_age") {
        Some(value) => {
            let text = value.text_described("a duration such as 8h")?;
            parse_duration(text.value.trim()).ok_or_else(|| {
                value.error(format!(
                    "{} is not a valid duration; write it like 30s, 15m, 8h, 1d or 1h30m \
                     (more than zero)",
                    text.shown()
                ))
            })?
        }
        None => OidcConfig::DEFAULT_MAX_AGE,
    };
    Ok(OidcConfig {
        issuer,
        client_id,
        client_secret,
        redirect_uri,
        redirect_is_https: redirect.https,
        scopes,
        max_age,
    })
}

pub(super) fn roles(value: &Value<'_>) -> Result<BTreeMap<String, Vec<Privilege>>, ConfigError> {
    let map = value.map()?;
    let mut roles = BTreeMap::new();
    for (key, value) in map.entries() {
        if key.name.trim().is_empty() {
            return Err(value.ctx().error(key.pos, value.path(), "a role name cannot be empty"));
        }
        roles.insert(key.name.to_string(), privileges(&value, false)?);
    }
    Ok(roles)
}

/// A list of privileges; for MCP, only reads and the MCP write privileges.
pub(super) fn privileges(value: &Value<'_>, for_mcp: bool) -> Result<Vec<Privilege>, ConfigError> {
    let mut privileges = Vec::new();
    for item in value.list()? {
        let text = item.text_described("a privilege name such as records")?;
        let Some(privilege) = Privilege::from_config_name(&text.value) else {
            let names = Privilege::ALL.iter().map(|privilege| privilege.config_name());
            let hint = match nearest(&text.value, names.clone()) {
                Some(near) => format!("did you mean {near:?}?"),
                None => format!("privileges are {}", names.collect::<Vec<_>>().join(", ")),
            };
            return Err(item.error(format!("unknown privilege {}; {hint}", text.shown())));
        };
        if privileges.contains(&privilege) {
            return Err(item.error(format!(
                "privilege {:?} is listed twice; list it once",
                privilege.config_name()
            )));
        }
        if for_mcp && !privilege.allowed_in_mcp() {
            let allowed = MCP_WRITE_PRIVILEGES
                .iter()
                .map(|privilege| privilege.config_name())
                .collect::<Vec<_>>();
            return Err(item.error(format!(
                "{:?} is a write privilege MCP does not accept; the only write privileges MCP \
                 accepts are {}",
                privilege.config_name(),
                both(&allowed)
            )));
        }
        privileges.push(privilege);
    }
    Ok(privileges)
}

pub(super) fn bindings(
    value: &Value<'_>, roles: &BTreeMap<String, Vec<Privilege>>, clusters: &[&str],
) -> Result<Vec<Binding>, ConfigError> {
    let mut bindings = Vec::new();
    for item in value.list()? {
        let map = item.map()?;
        map.only(BINDING_KEYS)?;
        let groups_value = map.required("groups", "list the groups this binding applies to")?;
        groups_value.non_empty_list("list at least one group")?;
        let groups = groups_value.string_list()?;

        let role_value = map.required("role", "name one of the roles under auth.roles")?;
        let role = role_value.text()?;
        if !roles.contains_key(&role.value) {
            let hint = if roles.is_empty() {
                "auth.roles defines no roles; define it there".to_string()
            } else {
                let suggestion = nearest(&role.value, roles.keys().map(String::as_str))
                    .map(|near| format!("did you mean {near:?}? "))
                    .unwrap_or_default();
                let names = roles.keys().map(String::as_str).collect::<Vec<_>>();
                format!("{suggestion}roles defined under auth.roles: {}", names.join(", "))
            };
            return Err(role_value.error(format!("unknown role {}; {hint}", role.shown())));
        }

        let clusters =
            map.get("clusters").map(|value| cluster_names(&value, clusters)).transpose()?;
        let resources = map
            .get("resources")
            .map(|value| {
                let patterns = resource_patterns(&value)?;
                let held = roles.get(&role.value).map(Vec::as_slice).unwrap_or_default();
                no_cluster_privilege(&value, held, &format!("role {:?}", role.value))?;
                Ok(patterns)
            })
            .transpose()?;
        bindings.push(Binding { groups, role: role.value, clusters, resources });
    }
    Ok(bindings)
}

/// A non-empty list of names of configured clusters.
pub(super) fn cluster_names(value: &Value<'_>, known: &[&str]) -> Result<Vec<String>, ConfigError> {
    let mut names: Vec<String> = Vec::new();
    for item in value.non_empty_list(CLUSTER_SUBSET)? {
        let name = known_cluster(&item, known)?;
        if names.contains(&name) {
            return Err(item.error(format!("cluster {name:?} is listed twice; list it once")));
        }
        names.push(name);
    }
    Ok(names)
}

/// The name of one configured cluster.
pub(super) fn known_cluster(value: &Value<'_>, known: &[&str]) -> Result<String, ConfigError> {
    let text = value.text()?;
    if !known.contains(&text.value.as_str()) {
        let suggestion = nearest(&text.value, known.iter().copied())
            .map(|near| format!("did you mean {near:?}? "))
            .unwrap_or_default();
        return Err(value.error(format!(
            "unknown cluster {}; {suggestion}configured clusters: {}",
            text.shown(),
            known.join(", ")
        )));
    }
    Ok(text.value)
}

pub(super) fn mcp(
    value: &Value<'_>, ui_listen: SocketAddr, clusters: &[&str],
) -> Result<McpConfig, ConfigError> {
    let map = value.map()?;
    map.only(MCP_KEYS)?;
    let listen_value =
        map.required("listen", "give the MCP listener its own address, such as 127.0.0.1:8090")?;
    let listen = socket_addr(&listen_value)?;
    let overlaps = listen.port() == ui_listen.port()
        && (listen.ip() == ui_listen.ip()
            || listen.ip().is_unspecified()
            || ui_listen.ip().is_unspecified());
    if overlaps {
        return Err(listen_value.error(
            "collides with listen (the web UI), which uses the same port on the same or a \
             wildcard address; give the MCP listener its own port",
        ));
    }
    let privileges = privileges(
        &map.required(
            "privileges",
            "list what MCP calls may do, such as [records], or [] for the catalog only",
        )?,
        true,
    )?;
    let clusters = map.get("clusters").map(|value| cluster_names(&value, clusters)).transpose()?;
    let secret = map.get("secret").map(|value| value.secret()).transpose()?;
    let resources = map
        .get("resources")
        .map(|value| {
            let patterns = resource_patterns(&value)?;
            no_cluster_privilege(&value, &privileges, "mcp.privileges")?;
            Ok(patterns)
        })
        .transpose()?;
    Ok(McpConfig { listen, privileges, clusters, secret, resources })
}

/// `resources:` of a binding or of the MCP ceiling: glob lists for topics, groups and subjects,
/// at least one of them given.
pub(super) fn resource_patterns(value: &Value<'_>) -> Result<ResourcePatterns, ConfigError> {
    let map = value.map()?;
    map.only(RESOURCE_KEYS)?;
    let list = |key: &str| -> Result<Vec<String>, ConfigError> {
        let Some(value) = map.get(key) else {
            return Ok(Vec::new());
        };
        glob_list(
            &value,
            "list at least one glob pattern such as \"payments-*\", or remove the key",
        )
    };
    let patterns = ResourcePatterns {
        topics: list("topics")?,
        groups: list("groups")?,
        subjects: list("subjects")?,
        connect: list("connect")?,
        replications: list("replications")?,
    };
    if patterns.topics.is_empty()
        && patterns.groups.is_empty()
        && patterns.subjects.is_empty()
        && patterns.replications.is_empty()
    {
        return Err(value.error(
            "names no resources; list topics, groups, subjects or replications patterns, or \
             remove the key to cover the whole cluster",
        ));
    }
    Ok(patterns)
}

/// A scope grants topic, group and subject privileges only: a cluster privilege among `held`
/// stops start-up, naming `whose` privileges they are.
pub(super) fn no_cluster_privilege(
    value: &Value<'_>, held: &[Privilege], whose: &str,
) -> Result<(), ConfigError> {
    let cluster: Vec<&str> = held
        .iter()
        .filter(|p| p.kind() == app::ResourceKind::Cluster)
        .map(|p| p.config_name())
        .collect();
    if cluster.is_empty() {
        return Ok(());
    }
    Err(value.error(format!(
        "{whose} holds {}, which apply to the whole cluster and cannot be scoped to \
         resources; grant them in a binding without resources",
        both(&cluster)
    )))
}
