#ifndef ROLLOUT_CGIT2_SHIM_H
#define ROLLOUT_CGIT2_SHIM_H
#include <git2.h>

/* git_libgit2_opts is variadic, which Swift cannot call: one fixed-signature wrapper per option we set. */
static inline int rollout_git_enable_fsync(int enabled) {
    return git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, enabled);
}
static inline int rollout_git_enable_strict_hash_verification(int enabled) {
    return git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, enabled);
}

/* *_OPTIONS_INIT macros are not importable: expose them as functions. */
static inline git_repository_init_options rollout_git_repository_init_options(void) {
    git_repository_init_options o = GIT_REPOSITORY_INIT_OPTIONS_INIT;
    return o;
}
/* Remotes. Callbacks are C functions here, so Swift never hands libgit2 a closure. */
#include <stdio.h>
#include <string.h>

/* What a push did to the one ref it updates: libgit2 reports a rejection (a non-fast-forward,
   a server hook) through push_update_reference with a non-NULL status, while git_remote_push
   itself still returns 0. */
typedef struct {
    int rejected;
    char status[512];
} rollout_push_outcome;

static int rollout_push_update_reference(const char *refname, const char *status, void *payload) {
    rollout_push_outcome *outcome = (rollout_push_outcome *)payload;
    (void)refname;
    if (status != NULL) {
        outcome->rejected = 1;
        snprintf(outcome->status, sizeof outcome->status, "%s", status);
    }
    return 0;
}

/* ssh: the user's ssh agent; https: whatever credential helper-free default libgit2 has. */
static int rollout_credentials(git_credential **out, const char *url, const char *username_from_url, unsigned int allowed_types, void *payload) {
    (void)url;
    (void)payload;
    if (allowed_types & GIT_CREDENTIAL_SSH_KEY) {
        return git_credential_ssh_key_from_agent(out, username_from_url != NULL ? username_from_url : "git");
    }
    if (allowed_types & GIT_CREDENTIAL_DEFAULT) {
        return git_credential_default_new(out);
    }
    return GIT_PASSTHROUGH;
}

static inline int rollout_git_fetch(git_remote *remote, const char *refspec) {
    git_fetch_options options;
    int error = git_fetch_options_init(&options, GIT_FETCH_OPTIONS_VERSION);
    if (error < 0) return error;
    options.callbacks.credentials = rollout_credentials;
    options.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
    char *specs[1] = { (char *)refspec };
    git_strarray refspecs = { specs, 1 };
    return git_remote_fetch(remote, &refspecs, &options, "rollout: fetch");
}

static inline int rollout_git_push(git_remote *remote, const char *refspec, rollout_push_outcome *outcome) {
    git_push_options options;
    int error = git_push_options_init(&options, GIT_PUSH_OPTIONS_VERSION);
    if (error < 0) return error;
    outcome->rejected = 0;
    outcome->status[0] = 0;
    options.callbacks.credentials = rollout_credentials;
    options.callbacks.push_update_reference = rollout_push_update_reference;
    options.callbacks.payload = outcome;
    char *specs[1] = { (char *)refspec };
    git_strarray refspecs = { specs, 1 };
    return git_remote_push(remote, &refspecs, &options);
}
#endif
