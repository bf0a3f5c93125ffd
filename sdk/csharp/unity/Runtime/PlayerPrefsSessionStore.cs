// ISessionStore on PlayerPrefs: the session survives a restart of the game. PlayerPrefs may
// only be used on Unity's main thread: values are read once when the store is made (make it
// in Awake/Start), kept in memory, and every change is written to PlayerPrefs on the main
// thread (the SDK may change the session from another thread).
// Reviewed by reading only: Unity does not run on the machine this SDK is tested on.
using System;
using System.Collections.Generic;
using System.Threading;
using UnityEngine;

namespace Manette.Unity
{
    public sealed class PlayerPrefsSessionStore : ISessionStore
    {
        readonly SynchronizationContext main;
        readonly string prefix;
        readonly Dictionary<string, string> cache = new Dictionary<string, string>();
        readonly HashSet<string> loaded = new HashSet<string>();

        /// <param name="prefix">Prepended to every PlayerPrefs key (several games or profiles in one project).</param>
        public PlayerPrefsSessionStore(string prefix = "")
        {
            main = SynchronizationContext.Current;
            if (main == null) throw new InvalidOperationException("Make PlayerPrefsSessionStore on Unity's main thread (in Awake or Start).");
            this.prefix = prefix ?? "";
        }

        bool OnMain { get { return SynchronizationContext.Current == main; } }

        public string Get(string key)
        {
            lock (cache)
            {
                string v;
                if (cache.TryGetValue(key, out v)) return v;
                if (loaded.Contains(key) || !OnMain) return null;
                loaded.Add(key);
                v = PlayerPrefs.HasKey(prefix + key) ? PlayerPrefs.GetString(prefix + key) : null;
                if (v != null) cache[key] = v;
                return v;
            }
        }

        public void Set(string key, string value)
        {
            lock (cache) { cache[key] = value; loaded.Add(key); }
            Write(() => { PlayerPrefs.SetString(prefix + key, value); PlayerPrefs.Save(); });
        }

        public void Remove(string key)
        {
            lock (cache) { cache.Remove(key); loaded.Add(key); }
            Write(() => { PlayerPrefs.DeleteKey(prefix + key); PlayerPrefs.Save(); });
        }

        void Write(Action a)
        {
            if (OnMain) a();
            else main.Post(_ => a(), null);
        }
    }
}
