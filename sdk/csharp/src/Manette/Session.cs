// The player's session, per game (keyed by a hash of the API key), kept in an
// ISessionStore; beside it the device's guest id (appareil_id, POST /players/invite).
using System;
using System.Collections.Generic;
using System.IO;
using System.Security.Cryptography;
using System.Text;
using System.Text.RegularExpressions;

namespace Manette
{
    /// <summary>Where the session is kept (string values by key), like localStorage in the browser SDK.</summary>
    public interface ISessionStore
    {
        /// <summary>The value, or null when none.</summary>
        string Get(string key);
        void Set(string key, string value);
        void Remove(string key);
    }

    /// <summary>Keeps the session in memory only (the default): a restart logs out.</summary>
    public sealed class MemorySessionStore : ISessionStore
    {
        readonly Dictionary<string, string> values = new Dictionary<string, string>();
        public string Get(string key) { lock (values) { string v; return values.TryGetValue(key, out v) ? v : null; } }
        public void Set(string key, string value) { lock (values) values[key] = value; }
        public void Remove(string key) { lock (values) values.Remove(key); }
    }

    /// <summary>Keeps the session in one JSON file (console programs, servers, tools).</summary>
    public sealed class FileSessionStore : ISessionStore
    {
        readonly string path;
        readonly object gate = new object();

        public FileSessionStore(string path) { this.path = path; }

        Dictionary<string, object> Load()
        {
            try { return File.Exists(path) ? Json.ParseObject(File.ReadAllText(path, Encoding.UTF8)) : new Dictionary<string, object>(); }
            catch (Exception) { return new Dictionary<string, object>(); }
        }

        void Save(Dictionary<string, object> d)
        {
            string dir = Path.GetDirectoryName(Path.GetFullPath(path));
            if (!string.IsNullOrEmpty(dir)) Directory.CreateDirectory(dir);
            string tmp = path + ".tmp";
            File.WriteAllText(tmp, Json.Serialize(d), new UTF8Encoding(false));
            if (File.Exists(path)) File.Delete(path);
            File.Move(tmp, path);
        }

        public string Get(string key) { lock (gate) { object v; return Load().TryGetValue(key, out v) ? v as string : null; } }
        public void Set(string key, string value) { lock (gate) { var d = Load(); d[key] = value; Save(d); } }
        public void Remove(string key) { lock (gate) { var d = Load(); if (d.Remove(key)) Save(d); } }
    }

    internal sealed class Session
    {
        static readonly Regex DeviceIdPattern = new Regex("^[A-Za-z0-9_-]{16,128}$");
        readonly ISessionStore store;
        readonly object gate = new object();
        public readonly string Key;
        public readonly string DeviceKey;
        string token;
        Joueur player;
        string memoryDevice;

        public event Action<Joueur> Changed;

        public Session(string apiKey, ISessionStore store)
        {
            this.store = store;
            Key = "manette.session." + Util.ShortHash(apiKey);
            DeviceKey = "manette.appareil." + Util.ShortHash(apiKey);
            Load();
        }

        public string Token { get { lock (gate) return token; } }
        public Joueur Player { get { lock (gate) return player; } }

        void Load()
        {
            try
            {
                string raw = store.Get(Key);
                var saved = raw == null ? null : Json.ParseObject(raw);
                token = JsonRead.Str(saved, "token");
                var j = JsonRead.Obj(saved, "joueur");
                player = token != null && j != null ? new Joueur(j) : null;
            }
            catch (Exception) { token = null; player = null; }
        }

        void Save()
        {
            try
            {
                store.Set(Key, Json.Serialize(new Dictionary<string, object> { { "token", token }, { "joueur", player == null ? null : player.Raw } }));
            }
            catch (Exception) { /* memory only */ }
        }

        public void Set(string newToken, Joueur joueur)
        {
            lock (gate) { token = newToken; player = joueur; Save(); }
            Emit();
        }

        public void SetPlayer(Joueur joueur)
        {
            lock (gate) { if (token == null) return; player = joueur; Save(); }
            Emit();
        }

        public void Clear()
        {
            bool had;
            lock (gate)
            {
                had = token != null;
                token = null;
                player = null;
                try { store.Remove(Key); } catch (Exception) { }
            }
            if (had) Emit();
        }

        /// <summary>Clears the session only if it is still the one that used `oldToken`.</summary>
        public void ClearIf(string oldToken)
        {
            lock (gate) { if (token != oldToken) return; }
            Clear();
        }

        public string DeviceId()
        {
            lock (gate)
            {
                string id = memoryDevice;
                try { id = store.Get(DeviceKey) ?? id; } catch (Exception) { }
                if (id != null && DeviceIdPattern.IsMatch(id)) return id;
                id = Util.RandomDeviceId();
                memoryDevice = id;
                try { store.Set(DeviceKey, id); } catch (Exception) { }
                return id;
            }
        }

        public void ForgetDevice()
        {
            lock (gate)
            {
                memoryDevice = null;
                try { store.Remove(DeviceKey); } catch (Exception) { }
            }
        }

        void Emit()
        {
            var h = Changed;
            if (h != null) h(Player);
        }
    }

    internal static class Util
    {
        /// <summary>FNV-1a in base 36, as the browser SDK names its storage keys.</summary>
        public static string ShortHash(string s)
        {
            uint h = 0x811c9dc5;
            foreach (char c in s)
            {
                h ^= c;
                unchecked { h *= 0x01000193; }
            }
            const string digits = "0123456789abcdefghijklmnopqrstuvwxyz";
            if (h == 0) return "0";
            var sb = new StringBuilder();
            while (h > 0) { sb.Insert(0, digits[(int)(h % 36)]); h /= 36; }
            return sb.ToString();
        }

        static readonly RandomNumberGenerator Rng = RandomNumberGenerator.Create();

        public static byte[] RandomBytes(int n)
        {
            var b = new byte[n];
            lock (Rng) Rng.GetBytes(b);
            return b;
        }

        /// <summary>A random UUID (v4), as the Idempotency-Key.</summary>
        public static string RandomId()
        {
            var b = RandomBytes(16);
            b[6] = (byte)((b[6] & 0x0f) | 0x40);
            b[8] = (byte)((b[8] & 0x3f) | 0x80);
            var sb = new StringBuilder(36);
            for (int i = 0; i < 16; i++)
            {
                if (i == 4 || i == 6 || i == 8 || i == 10) sb.Append('-');
                sb.Append(b[i].ToString("x2"));
            }
            return sb.ToString();
        }

        /// <summary>32 characters of base64url from 24 random bytes.</summary>
        public static string RandomDeviceId()
        {
            return Convert.ToBase64String(RandomBytes(24)).Replace('+', '-').Replace('/', '_');
        }
    }
}
