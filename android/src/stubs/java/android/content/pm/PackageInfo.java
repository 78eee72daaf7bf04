package android.content.pm;

/** Stand-in for android.content.pm.PackageInfo (API 1; Parcelable there): see ../../../README.md. */
public class PackageInfo {
    /** The version name of this package, as android:versionName gives it; or null. API 1. */
    public String versionName;

    public PackageInfo() {}
}
