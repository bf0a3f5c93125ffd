-- Written by `npm run schema` from supabase/migrations. Edit it, then `npm run migration -- <name>` (supabase/schema/README.md).

-- realtime.messages belongs to the platform (the twin provisions it as Supabase does); only what Manette's migrations added to it is here.

-- Policies
create policy "Manette rooms are read by their players" on realtime.messages
  as permissive for select to authenticated
  using (((extension = ANY (ARRAY['broadcast'::text, 'presence'::text])) AND (topic = ( SELECT realtime.topic() AS topic)) AND ( SELECT manette_realtime.can_read(( SELECT realtime.topic() AS topic)) AS can_read)));
create policy "Manette rooms are written by their players when the game allows" on realtime.messages
  as permissive for insert to authenticated
  with check (((extension = ANY (ARRAY['broadcast'::text, 'presence'::text])) AND (topic = ( SELECT realtime.topic() AS topic)) AND ( SELECT manette_realtime.can_write(( SELECT realtime.topic() AS topic)) AS can_write)));
create policy "Manette topics are never deleted by clients" on realtime.messages
  as restrictive for delete to public
  using (("left"(topic, 8) <> 'manette_'::text));
create policy "Manette topics are never updated by clients" on realtime.messages
  as restrictive for update to public
  using (("left"(topic, 8) <> 'manette_'::text))
  with check (("left"(topic, 8) <> 'manette_'::text));
create policy "Manette topics are read only by those Manette lets read" on realtime.messages
  as restrictive for select to public
  using ((("left"(topic, 8) <> 'manette_'::text) OR ((CURRENT_USER = 'authenticated'::name) AND (extension = ANY (ARRAY['broadcast'::text, 'presence'::text])) AND (topic = ( SELECT realtime.topic() AS topic)) AND ( SELECT manette_realtime.can_read(( SELECT realtime.topic() AS topic)) AS can_read))));
create policy "Manette topics are written only by those Manette lets write" on realtime.messages
  as restrictive for insert to public
  with check ((("left"(topic, 8) <> 'manette_'::text) OR ((CURRENT_USER = 'authenticated'::name) AND (extension = ANY (ARRAY['broadcast'::text, 'presence'::text])) AND (topic = ( SELECT realtime.topic() AS topic)) AND ( SELECT manette_realtime.can_write(( SELECT realtime.topic() AS topic)) AS can_write))));
create policy "Manette's server sends on Manette's topics" on realtime.messages
  as permissive for insert to postgres
  with check ((topic ~ '^manette_(partie|joueur)_'::text));
