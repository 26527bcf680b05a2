/// The version of this build, as `vault_build_info{version}` shows it (and the release tarball is named).
public enum VaultVersion {
    /// The version string, changed when a release is cut.
    public static let current = "0.5.0"
}
