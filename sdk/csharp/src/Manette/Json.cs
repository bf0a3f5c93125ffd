// A small JSON reader and writer (RFC 8259), so that the SDK needs nothing beyond the base
// class library. Objects are Dictionary<string, object> (keys in order of appearance),
// arrays List<object>, strings string, numbers long (an integer that fits) or double,
// true/false bool, null null.
using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace Manette
{
    /// <summary>A JSON text that could not be read.</summary>
    public sealed class JsonException : FormatException
    {
        public int Position { get; private set; }
        public JsonException(string message, int position) : base(message + " at " + position) { Position = position; }
    }

    public static class Json
    {
        /// <summary>Nesting deeper than this is refused (the server refuses 64 levels too).</summary>
        public const int MaxDepth = 128;

        /// <summary>Reads one JSON value; whitespace around it is allowed, anything else is an error.</summary>
        public static object Parse(string text)
        {
            if (text == null) throw new ArgumentNullException("text");
            var r = new Reader(text);
            r.SkipWhitespace();
            object value = r.ReadValue(0);
            r.SkipWhitespace();
            if (r.Pos != text.Length) throw new JsonException("Unexpected character '" + text[r.Pos] + "' after the value", r.Pos);
            return value;
        }

        /// <summary>Parses a JSON object (an error when the text is another kind of value).</summary>
        public static Dictionary<string, object> ParseObject(string text)
        {
            var d = Parse(text) as Dictionary<string, object>;
            if (d == null) throw new JsonException("A JSON object was expected", 0);
            return d;
        }

        /// <summary>Compact JSON (no spaces), as JSON.stringify writes it.</summary>
        public static string Serialize(object value)
        {
            var sb = new StringBuilder();
            Write(sb, value, 0);
            return sb.ToString();
        }

        static void Write(StringBuilder sb, object value, int depth)
        {
            if (depth > MaxDepth) throw new InvalidOperationException("JSON nested too deeply (a cycle?)");
            if (value == null) { sb.Append("null"); return; }
            var s = value as string;
            if (s != null) { WriteString(sb, s); return; }
            if (value is bool) { sb.Append((bool)value ? "true" : "false"); return; }
            if (value is int || value is long || value is short || value is sbyte || value is byte || value is ushort || value is uint || value is ulong)
            {
                sb.Append(Convert.ToString(value, CultureInfo.InvariantCulture));
                return;
            }
            if (value is double || value is float)
            {
                double d = Convert.ToDouble(value, CultureInfo.InvariantCulture);
                if (double.IsNaN(d) || double.IsInfinity(d)) throw new ArgumentException("JSON has no NaN nor Infinity");
                if (d == Math.Floor(d) && Math.Abs(d) < 1e15) sb.Append(((long)d).ToString(CultureInfo.InvariantCulture));
                else sb.Append(d.ToString("R", CultureInfo.InvariantCulture));
                return;
            }
            if (value is decimal) { sb.Append(((decimal)value).ToString(CultureInfo.InvariantCulture)); return; }
            if (value is char) { WriteString(sb, value.ToString()); return; }
            if (value is Enum) { WriteString(sb, value.ToString()); return; }
            var jv = value as IJsonValue;
            if (jv != null) { Write(sb, jv.ToJson(), depth + 1); return; }
            var dict = value as IDictionary;
            if (dict != null)
            {
                sb.Append('{');
                bool first = true;
                foreach (DictionaryEntry e in dict)
                {
                    if (!first) sb.Append(',');
                    first = false;
                    WriteString(sb, Convert.ToString(e.Key, CultureInfo.InvariantCulture));
                    sb.Append(':');
                    Write(sb, e.Value, depth + 1);
                }
                sb.Append('}');
                return;
            }
            var list = value as IEnumerable;
            if (list != null)
            {
                sb.Append('[');
                bool first = true;
                foreach (object item in list)
                {
                    if (!first) sb.Append(',');
                    first = false;
                    Write(sb, item, depth + 1);
                }
                sb.Append(']');
                return;
            }
            throw new ArgumentException("Cannot write a " + value.GetType().Name + " as JSON");
        }

        static void WriteString(StringBuilder sb, string s)
        {
            sb.Append('"');
            for (int i = 0; i < s.Length; i++)
            {
                char c = s[i];
                switch (c)
                {
                    case '"': sb.Append("\\\""); break;
                    case '\\': sb.Append("\\\\"); break;
                    case '\n': sb.Append("\\n"); break;
                    case '\r': sb.Append("\\r"); break;
                    case '\t': sb.Append("\\t"); break;
                    case '\b': sb.Append("\\b"); break;
                    case '\f': sb.Append("\\f"); break;
                    default:
                        if (c < 0x20 || c == '\u2028' || c == '\u2029') AppendEscape(sb, c);
                        else if (char.IsHighSurrogate(c))
                        {
                            if (i + 1 < s.Length && char.IsLowSurrogate(s[i + 1])) { sb.Append(c); sb.Append(s[++i]); }
                            else AppendEscape(sb, c); // a lone surrogate: escaped, so the text stays valid UTF-8
                        }
                        else if (char.IsLowSurrogate(c)) AppendEscape(sb, c);
                        else sb.Append(c);
                        break;
                }
            }
            sb.Append('"');
        }

        static void AppendEscape(StringBuilder sb, char c)
        {
            sb.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
        }

        sealed class Reader
        {
            readonly string t;
            public int Pos;
            public Reader(string text) { t = text; }

            public void SkipWhitespace()
            {
                while (Pos < t.Length)
                {
                    char c = t[Pos];
                    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') Pos++;
                    else break;
                }
            }

            JsonException Error(string message) { return new JsonException(message, Pos); }

            public object ReadValue(int depth)
            {
                if (depth > MaxDepth) throw Error("JSON nested too deeply");
                if (Pos >= t.Length) throw Error("Unexpected end of JSON");
                char c = t[Pos];
                switch (c)
                {
                    case '{': return ReadObject(depth);
                    case '[': return ReadArray(depth);
                    case '"': return ReadString();
                    case 't': Expect("true"); return true;
                    case 'f': Expect("false"); return false;
                    case 'n': Expect("null"); return null;
                    default:
                        if (c == '-' || (c >= '0' && c <= '9')) return ReadNumber();
                        throw Error("Unexpected character '" + c + "'");
                }
            }

            void Expect(string word)
            {
                if (string.CompareOrdinal(t, Pos, word, 0, word.Length) != 0) throw Error("Invalid literal");
                Pos += word.Length;
            }

            Dictionary<string, object> ReadObject(int depth)
            {
                var d = new Dictionary<string, object>();
                Pos++;
                SkipWhitespace();
                if (Pos < t.Length && t[Pos] == '}') { Pos++; return d; }
                for (;;)
                {
                    SkipWhitespace();
                    if (Pos >= t.Length || t[Pos] != '"') throw Error("A string key was expected");
                    string key = ReadString();
                    SkipWhitespace();
                    if (Pos >= t.Length || t[Pos] != ':') throw Error("':' was expected");
                    Pos++;
                    SkipWhitespace();
                    d[key] = ReadValue(depth + 1); // a repeated key: the last one wins, as in JSON.parse
                    SkipWhitespace();
                    if (Pos >= t.Length) throw Error("Unexpected end of JSON in an object");
                    if (t[Pos] == ',') { Pos++; continue; }
                    if (t[Pos] == '}') { Pos++; return d; }
                    throw Error("',' or '}' was expected");
                }
            }

            List<object> ReadArray(int depth)
            {
                var list = new List<object>();
                Pos++;
                SkipWhitespace();
                if (Pos < t.Length && t[Pos] == ']') { Pos++; return list; }
                for (;;)
                {
                    SkipWhitespace();
                    list.Add(ReadValue(depth + 1));
                    SkipWhitespace();
                    if (Pos >= t.Length) throw Error("Unexpected end of JSON in an array");
                    if (t[Pos] == ',') { Pos++; continue; }
                    if (t[Pos] == ']') { Pos++; return list; }
                    throw Error("',' or ']' was expected");
                }
            }

            string ReadString()
            {
                Pos++; // opening quote
                StringBuilder sb = null;
                int start = Pos;
                for (;;)
                {
                    if (Pos >= t.Length) throw Error("Unterminated string");
                    char c = t[Pos];
                    if (c == '"')
                    {
                        string s = sb == null ? t.Substring(start, Pos - start) : sb.Append(t, start, Pos - start).ToString();
                        Pos++;
                        return s;
                    }
                    if (c < 0x20) throw Error("Control character in a string");
                    if (c != '\\') { Pos++; continue; }
                    if (sb == null) sb = new StringBuilder();
                    sb.Append(t, start, Pos - start);
                    Pos++;
                    if (Pos >= t.Length) throw Error("Unterminated escape");
                    char e = t[Pos++];
                    switch (e)
                    {
                        case '"': sb.Append('"'); break;
                        case '\\': sb.Append('\\'); break;
                        case '/': sb.Append('/'); break;
                        case 'b': sb.Append('\b'); break;
                        case 'f': sb.Append('\f'); break;
                        case 'n': sb.Append('\n'); break;
                        case 'r': sb.Append('\r'); break;
                        case 't': sb.Append('\t'); break;
                        case 'u':
                            if (Pos + 4 > t.Length) throw Error("Truncated \\u escape");
                            int code = 0;
                            for (int k = 0; k < 4; k++)
                            {
                                int h = Hex(t[Pos + k]);
                                if (h < 0) throw Error("Invalid \\u escape");
                                code = code * 16 + h;
                            }
                            Pos += 4;
                            sb.Append((char)code); // surrogate pairs arrive as two escapes: UTF-16 joins them
                            break;
                        default: Pos--; throw Error("Invalid escape '\\" + e + "'");
                    }
                    start = Pos;
                }
            }

            static int Hex(char c)
            {
                if (c >= '0' && c <= '9') return c - '0';
                if (c >= 'a' && c <= 'f') return c - 'a' + 10;
                if (c >= 'A' && c <= 'F') return c - 'A' + 10;
                return -1;
            }

            object ReadNumber()
            {
                int start = Pos;
                if (t[Pos] == '-') Pos++;
                if (Pos >= t.Length) throw Error("Invalid number");
                if (t[Pos] == '0') Pos++;
                else if (t[Pos] >= '1' && t[Pos] <= '9') { while (Pos < t.Length && t[Pos] >= '0' && t[Pos] <= '9') Pos++; }
                else throw Error("Invalid number");
                bool integer = true;
                if (Pos < t.Length && t[Pos] == '.')
                {
                    integer = false;
                    Pos++;
                    if (Pos >= t.Length || t[Pos] < '0' || t[Pos] > '9') throw Error("Digits expected after '.'");
                    while (Pos < t.Length && t[Pos] >= '0' && t[Pos] <= '9') Pos++;
                }
                if (Pos < t.Length && (t[Pos] == 'e' || t[Pos] == 'E'))
                {
                    integer = false;
                    Pos++;
                    if (Pos < t.Length && (t[Pos] == '+' || t[Pos] == '-')) Pos++;
                    if (Pos >= t.Length || t[Pos] < '0' || t[Pos] > '9') throw Error("Digits expected in the exponent");
                    while (Pos < t.Length && t[Pos] >= '0' && t[Pos] <= '9') Pos++;
                }
                string s = t.Substring(start, Pos - start);
                long l;
                if (integer && long.TryParse(s, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out l)) return l;
                double d;
                // Past double's range: .NET Framework and Mono throw, .NET Core answers Infinity.
                try { d = double.Parse(s, NumberStyles.Float, CultureInfo.InvariantCulture); }
                catch (OverflowException) { throw new JsonException("Number out of range", start); }
                if (double.IsInfinity(d)) throw new JsonException("Number out of range", start);
                return d;
            }
        }
    }

    /// <summary>A typed wire object that can be written back as JSON (its raw fields).</summary>
    public interface IJsonValue
    {
        object ToJson();
    }

    /// <summary>Typed reads from parsed JSON (missing or mistyped fields give the default).</summary>
    public static class JsonRead
    {
        public static object Get(IDictionary<string, object> o, string key)
        {
            object v;
            return o != null && o.TryGetValue(key, out v) ? v : null;
        }
        public static string Str(IDictionary<string, object> o, string key) { return Get(o, key) as string; }
        public static long Long(IDictionary<string, object> o, string key, long def = 0)
        {
            object v = Get(o, key);
            if (v is long) return (long)v;
            if (v is double) return (long)(double)v;
            return def;
        }
        public static long? LongOrNull(IDictionary<string, object> o, string key)
        {
            object v = Get(o, key);
            if (v is long) return (long)v;
            if (v is double) return (long)(double)v;
            return null;
        }
        public static double Double(IDictionary<string, object> o, string key, double def = 0)
        {
            object v = Get(o, key);
            if (v is long) return (long)v;
            if (v is double) return (double)v;
            return def;
        }
        public static double? DoubleOrNull(IDictionary<string, object> o, string key)
        {
            object v = Get(o, key);
            if (v is long) return (long)v;
            if (v is double) return (double)v;
            return null;
        }
        public static bool Bool(IDictionary<string, object> o, string key, bool def = false)
        {
            object v = Get(o, key);
            return v is bool ? (bool)v : def;
        }
        public static bool? BoolOrNull(IDictionary<string, object> o, string key)
        {
            object v = Get(o, key);
            return v is bool ? (bool?)(bool)v : null;
        }
        public static Dictionary<string, object> Obj(IDictionary<string, object> o, string key) { return Get(o, key) as Dictionary<string, object>; }
        public static List<object> List(IDictionary<string, object> o, string key) { return Get(o, key) as List<object>; }

        /// <summary>Each object of the array `key`, converted.</summary>
        public static List<T> ListOf<T>(IDictionary<string, object> o, string key, Func<Dictionary<string, object>, T> convert)
        {
            return Convert<T>(List(o, key), convert);
        }

        public static List<T> Convert<T>(List<object> items, Func<Dictionary<string, object>, T> convert)
        {
            var result = new List<T>();
            if (items == null) return result;
            foreach (object item in items)
            {
                var d = item as Dictionary<string, object>;
                if (d != null) result.Add(convert(d));
            }
            return result;
        }
    }
}
