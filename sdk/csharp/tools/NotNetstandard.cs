// A library that uses a type outside .NET Standard 2.0 (remoting, .NET Framework only):
// build.sh checks that NetstandardCheck refuses it, so that the check of the core can fail.
public static class NotNetstandard
{
    public static bool IsProxy(object o) { return System.Runtime.Remoting.RemotingServices.IsTransparentProxy(o); }
}
