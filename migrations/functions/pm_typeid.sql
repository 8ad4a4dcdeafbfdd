-- `<prefix>_<26 chars>`: the TypeID of a new UUIDv7 (Crockford base32 of its 128 bits after two zero bits), as src/ids.ts makes.
CREATE OR REPLACE FUNCTION pm_typeid(prefix text) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  bits bit(130) := B'00' || ('x' || encode(uuid_send(pm_uuidv7()), 'hex'))::bit(128);
  alphabet constant text := '0123456789abcdefghjkmnpqrstvwxyz';
  encoded text := '';
BEGIN
  FOR i IN 0..25 LOOP
    encoded := encoded || substr(alphabet, substring(bits FROM i * 5 + 1 FOR 5)::int + 1, 1);
  END LOOP;
  RETURN prefix || '_' || encoded;
END $$;
