// The API's error envelope as an exception: {ok: false, error, message, reason?, details?}.
using System;
using System.Collections.Generic;

namespace Manette
{
    /// <summary>One field of a validation error (`details`: {champ, message}).</summary>
    public sealed class FieldIssue
    {
        public string Champ { get; private set; }
        public string Message { get; private set; }
        public FieldIssue(string champ, string message) { Champ = champ; Message = message; }
        public override string ToString() { return Champ + ": " + Message; }
    }

    /// <summary>
    /// Every failure of the SDK. <see cref="Error"/> is the API's code (`invalid_credentials`,
    /// `action_refusee`, ...) or one of the SDK's own: `network_error` (no answer),
    /// `realtime_unavailable` (Realtime could not be joined in time), `realtime_refused`
    /// (a room refused the join), `not_queued`, `aborted`. Branch on Error and Reason, never
    /// on Message, which is for the player (in the client's language).
    /// </summary>
    public class ManetteException : Exception
    {
        /// <summary>The error code of the envelope (`error`).</summary>
        public string Error { get; private set; }
        /// <summary>The envelope's `reason` (`action_refusee` gives one, e.g. `pas_ton_tour`), else null.</summary>
        public string Reason { get; private set; }
        /// <summary>The HTTP status; 0 for an error without an answer.</summary>
        public int Status { get; private set; }
        /// <summary>`details` of `validation_failed` / `invalid_query`, else null.</summary>
        public IList<FieldIssue> Details { get; private set; }
        /// <summary>The answer's `x-request-id`, when there was one.</summary>
        public string RequestId { get; private set; }
        /// <summary>For `compte_suspendu`: the ban's end (ISO 8601), null until lifted.</summary>
        public string JusquA { get; private set; }

        public ManetteException(string error, int status, string message, string reason = null,
            IList<FieldIssue> details = null, string requestId = null, string jusquA = null, Exception inner = null)
            : base(message, inner)
        {
            Error = error;
            Status = status;
            Reason = reason;
            Details = details;
            RequestId = requestId;
            JusquA = jusquA;
        }

        public override string ToString()
        {
            return "ManetteException(" + Error + (Reason != null ? "/" + Reason : "") + ", " + Status + "): " + Message;
        }

        internal static ManetteException Network(Exception cause, string lang)
        {
            return new ManetteException("network_error", 0, lang == "en" ? "The server cannot be reached." : "Le serveur est injoignable.", inner: cause);
        }

        internal static ManetteException Aborted(string lang)
        {
            return new ManetteException("aborted", 0, lang == "en" ? "Cancelled." : "Annulé.");
        }
    }
}
