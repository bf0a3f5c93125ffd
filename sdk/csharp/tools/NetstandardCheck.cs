// Checks that an assembly compiled against Mono's 4.x profile references only types that
// .NET Standard 2.0 has: every type reference (TypeRef) of the assembly must be one that
// the netstandard.dll facade forwards. (A type-level check: a member added to a type after
// .NET Standard 2.0 would not be caught; the core's sources avoid them by review.)
// Usage: mono NetstandardCheck.exe <assembly.dll> <file of the facade's type names>
using System;
using System.Collections.Generic;
using System.Reflection;

public static class NetstandardCheck
{
    public static int Main(string[] args)
    {
        var subject = Assembly.LoadFrom(args[0]);
        // The types .NET Standard 2.0 has: the forwarders of Mono's netstandard.dll facade, one
        // name a line (build.sh lists them with ikdasm: Mono's reflection cannot read forwarders).
        var allowed = new HashSet<string>();
        foreach (var line in System.IO.File.ReadAllLines(args[1])) if (line.Trim().Length > 0) allowed.Add(line.Trim());
        if (allowed.Count < 1000) { Console.Error.WriteLine("NetstandardCheck: the facade lists only " + allowed.Count + " types"); return 2; }
        var bad = new SortedSet<string>();
        int checkedTypes = 0;
        foreach (var module in subject.GetModules())
        {
            for (int row = 1; ; row++)
            {
                Type t;
                try { t = module.ResolveType(0x01000000 | row); }
                catch (ArgumentOutOfRangeException) { break; }
                catch (Exception) { continue; }
                if (t.Assembly == subject) continue;
                var outer = t;
                while (outer.IsNested) outer = outer.DeclaringType;
                checkedTypes++;
                if (!allowed.Contains(outer.FullName)) bad.Add(t.FullName + " (" + t.Assembly.GetName().Name + ")");
            }
        }
        if (bad.Count > 0)
        {
            Console.Error.WriteLine("Types outside .NET Standard 2.0 used by " + subject.GetName().Name + ":");
            foreach (var b in bad) Console.Error.WriteLine("  " + b);
            return 1;
        }
        Console.WriteLine("netstandard2.0 check: " + checkedTypes + " referenced types of " + subject.GetName().Name + ", all in .NET Standard 2.0 (" + allowed.Count + " types)");
        return 0;
    }
}
